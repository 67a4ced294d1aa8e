// Package execute reproduces the runs of research-agent benchmarks such as
// RExBench: it checks out a task repository at its base commit, applies the
// agent's patch, runs the task's command in a sandbox (no network, writes
// confined to the run folder) on local GPUs or through Slurm, records the
// outputs and judges them against the task's gold values.
//
// Every run ends in exactly one outcome:
//
//   - no_patch: the agent's patch is empty, so nothing is run;
//   - patch_failed: the patch is rejected by vetting or does not apply;
//   - exec_error: the task's command fails (non-zero exit, missing entry
//     point, missing result files);
//   - timeout: the command runs past the task's time limit;
//   - resource_limit: the command exceeds its process or memory limit;
//   - wrong_result: the command succeeds but its result misses the gold
//     criterion;
//   - success: the result meets the gold criterion.
//
// # What exists now
//
// Checkout writes the tree of a task repository at its base commit (a full
// or abbreviated commit id, branch or tag, resolved as git resolves it; see
// ResolveCommit) into a fresh run folder with go-git, never touching the
// repository or the network, confining every write to the folder and
// refusing symlinks that point out of it.
//
// Patch parsing and vetting: ParsePatch reads an agent's patch (a unified
// diff as git diff writes it) with github.com/bluekeyes/go-gitdiff, lists the
// files it touches with their git diff --name-status letter and line counts,
// and rejects anything unsafe to apply in a run folder: absolute paths, ".."
// elements, paths into .git, NUL, control characters or backslashes in
// paths, symlinks, setuid/setgid bits and patches larger than MaxPatchBytes.
// Patch.FilesTouched gives the set of paths used for file recall.
//
// Vetting is a first line of defence only: it reads the patch the way
// go-gitdiff does, which need not be exactly how git apply or patch read it,
// so the code that applies patches must still apply them inside the sandbox
// and check the files actually changed.
//
// Run executes a batch (patches × seeds × repeats) with GPU and CPU
// scheduling (DiscoverGPUs, SelectGPUs; each run gets its GPUs alone,
// by UUID and device binds), resource limits (Limits), an append-only
// journal and resume (ReadJournal, Status), on the local sandbox or the
// docker, podman or slurm backends. With the local bwrap sandbox a run's
// work tree is an overlayfs of one base checkout per run folder
// (RUNDIR/.base/COMMIT) and the run's own upper folder, so a run writes
// only what it changes (overlay.go, overlayview.go); elsewhere, or with
// RDEVAL_WORKTREE=checkout, every run gets a full checkout. Calibrate and WriteGold make the
// calibrated success ranges of `rdeval execute gold`. docs/execute.md is
// the full reference.
//
// # Dependencies
//
// Among rdeval's own packages, execute may import only ingest.
package execute
