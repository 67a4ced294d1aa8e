package ingest

// Reader for Harbor jobs (harbor-framework/harbor, formerly
// laude-institute/harbor: the harness of Terminal-Bench 2 and of the
// RExBench Harbor adapter).
//
// `harbor run` writes a job folder:
//
//	jobs/<job_name>/config.json          JobConfig (job_name, agents, datasets, …)
//	jobs/<job_name>/result.json          JobResult (n_total_trials, stats): not read
//	jobs/<job_name>/<trial_name>/result.json   TrialResult: one run each
//	jobs/<job_name>/<trial_name>/{agent,verifier}/…  logs: not read
//
// The fields read follow Harbor's pydantic models (harbor.models.trial.result
// TrialResult, ExceptionInfo, AgentInfo, ModelInfo; harbor.models.agent.context
// AgentContext; harbor.models.verifier.result VerifierResult;
// harbor.models.trial.config TrialConfig; harbor.models.job.config JobConfig),
// read in the source, not copied. A trial result.json is recognised by its
// "trial_name", "trial_uri" and "task_checksum" keys; the job's own
// result.json (no trial_name) and config.json are not inputs.
//
// # Mapping to the runs table
//
// One run per trial result.json:
//
//   - run_id = job name + "/" + trial_name. The job name is job_name in the
//     job's config.json (the trial folder's parent), else the name of that
//     folder. Harbor names trials <task>__<7 random characters>, unique within
//     a job, so run ids are unique across jobs.
//   - task_id = task_name; task_version = task_checksum (it changes exactly
//     when the task's files change); benchmark = source (the dataset's name,
//     e.g. "terminal-bench", "rexbench"), else "harbor"; --benchmark overrides.
//   - scaffold = agent_info.name; model = config.agent.model_name as the user
//     gave it (e.g. "anthropic/claude-sonnet-4-5"), else
//     agent_info.model_info provider + "/" + name, else its name; agent =
//     scaffold + " + " + model, or the scaffold alone when there is no model
//     (Harbor's oracle agent, which runs the reference solution, is kept as
//     an agent named "oracle").
//   - score and raw_score = the reward, chosen as Harbor's own Mean metric
//     does (harbor/metrics/mean.py): the only value when
//     verifier_result.rewards has one key, else the "reward" key. When it has
//     several keys and none is "reward", Harbor's Mean raises an error; here
//     Options.Scorer (--scorer KEY) names the key, and without it the trial
//     is rejected with an error listing the keys. A trial with no
//     verifier_result (or null rewards) scores 0, as Harbor's Mean counts it,
//     so that the mean of score is the job's reported mean; its outcome says
//     why. A reward key named by Options.Scorer that a trial lacks is an
//     error, not a 0.
//   - success: Harbor has no pass flag; a reward of exactly 1 is a pass and
//     exactly 0 a fail (Terminal-Bench 2 and RExBench write 1/0), and
//     score_binarized is set only then. Any other reward (partial credit)
//     leaves final_success, score_binarized and outcome null unless an
//     exception sets the outcome: whether 0.5 passes is the task's business.
//   - outcome: reward 1 → "success" (even with an exception: the verifier
//     passed); else an exception_info whose exception_type is
//     AgentTimeoutError or VerifierTimeoutError → "timeout", any other
//     exception → "exec_error"; else reward 0 → "wrong_result".
//     error_type = exception_type + ": " + the first line of
//     exception_message (cut at 200 bytes).
//   - tokens = agent_result.n_input_tokens + n_output_tokens (Harbor's
//     n_input_tokens already includes n_cache_tokens, so the cache is not
//     added again); null when both are null. cost_usd = agent_result.cost_usd.
//   - started_at / completed_at = started_at / finished_at; duration_s
//     follows. Harbor writes datetime.now() without a zone: a time without
//     an offset is read as UTC (durations are right; absolute times are off
//     by the offset of the machine that ran the job), with one warning per
//     job.
//   - source_file = the trial's result.json; source_line = 1.
//
// The rest of the trial (agent_info.version and model_info, the input,
// cache and output token counts,
// rewards other than the one scored, the per-phase timings
// environment_setup, agent_setup, agent_execution and verifier, the full
// exception message and traceback, the trial config, …) is the run's
// extras (extras.go): the result.json less the fields in harborMapped and
// the scored reward.
//
// # Bad input
//
// A result.json that is not valid JSON, lacks task_name or trial_name, has a
// reward that is not a number, or has several reward keys with none chosen,
// is rejected on its own with an error naming the file and field; the other
// trials are kept.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ReaderHarbor reads the trial result.json files of a Harbor job folder.
const ReaderHarbor = "harbor"

type harborTrial struct {
	TaskName     *string `json:"task_name"`
	TrialName    *string `json:"trial_name"`
	Source       *string `json:"source"`
	TaskChecksum *string `json:"task_checksum"`
	Config       *struct {
		Agent *struct {
			Name      *string `json:"name"`
			ModelName *string `json:"model_name"`
		} `json:"agent"`
	} `json:"config"`
	AgentInfo *struct {
		Name      string `json:"name"`
		Version   string `json:"version"`
		ModelInfo *struct {
			Name     string `json:"name"`
			Provider string `json:"provider"`
		} `json:"model_info"`
	} `json:"agent_info"`
	AgentResult *struct {
		NInputTokens  *float64 `json:"n_input_tokens"`
		NCacheTokens  *float64 `json:"n_cache_tokens"`
		NOutputTokens *float64 `json:"n_output_tokens"`
		CostUSD       *float64 `json:"cost_usd"`
	} `json:"agent_result"`
	VerifierResult *struct {
		Rewards map[string]json.RawMessage `json:"rewards"`
	} `json:"verifier_result"`
	ExceptionInfo *struct {
		ExceptionType    string `json:"exception_type"`
		ExceptionMessage string `json:"exception_message"`
	} `json:"exception_info"`
	StartedAt  *string `json:"started_at"`
	FinishedAt *string `json:"finished_at"`
}

// looksHarborTrial reports whether a JSON document's first bytes look like
// a Harbor TrialResult.
func looksHarborTrial(head []byte) bool {
	return bytes.Contains(head, []byte(`"trial_name"`)) && bytes.Contains(head, []byte(`"trial_uri"`)) &&
		bytes.Contains(head, []byte(`"task_checksum"`))
}

// isHarborJobDir reports whether dir is a Harbor job folder: its
// config.json is a JobConfig (pydantic writes every field, job_name and
// jobs_dir among them).
func isHarborJobDir(fsys fs.FS, dir string) bool {
	head := fileHead(fsys, filepath.Join(dir, "config.json"))
	return bytes.Contains(head, []byte(`"job_name"`)) && bytes.Contains(head, []byte(`"jobs_dir"`))
}

// readAux reads a small file beside an input (a job's config.json, a run's
// run_metadata.json), from Options.FS when set.
func (l *loader) readAux(path string) ([]byte, error) {
	var r io.ReadCloser
	var err error
	if l.opt.FS != nil {
		r, err = l.opt.FS.Open(path)
	} else {
		r, err = os.Open(path)
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, 64<<20))
}

// auxState returns the per-folder state of a folder reader, made by mk on
// first use.
func auxState[T any](l *loader, key string, mk func() *T) *T {
	if l.aux == nil {
		l.aux = map[string]any{}
	}
	if v, ok := l.aux[key]; ok {
		return v.(*T)
	}
	v := mk()
	l.aux[key] = v
	return v
}

// harborJob is what a job folder contributes to its trials.
type harborJob struct {
	name      string
	naiveWarn bool // warned about times without an offset
}

func (l *loader) harborJobOf(trialFile string) *harborJob {
	dir := filepath.Dir(filepath.Dir(trialFile))
	return auxState(l, "harbor:"+dir, func() *harborJob {
		j := &harborJob{name: filepath.Base(dir)}
		if b, err := l.readAux(filepath.Join(dir, "config.json")); err == nil {
			var c struct {
				JobName string `json:"job_name"`
			}
			if json.Unmarshal(b, &c) == nil && c.JobName != "" {
				j.name = c.JobName
			}
		}
		return j
	})
}

// harborTimeoutErrors are the exception types Harbor raises when a phase
// runs out of time (harbor/trial/trial.py).
var harborTimeoutErrors = map[string]bool{"AgentTimeoutError": true, "VerifierTimeoutError": true}

// readHarborTrial maps one trial result.json to a run (see the file comment).
func (l *loader) readHarborTrial(path string, r io.Reader, st *InputStats) {
	st.Reader = ReaderHarbor
	st.RowsRead++
	b, err := io.ReadAll(io.LimitReader(r, 256<<20))
	if err != nil {
		l.fileErr(path, err)
		return
	}
	bad := func(field, format string, args ...any) {
		l.reject(st, &Error{File: path, Line: 1, Field: field, Msg: fmt.Sprintf(format, args...)}, b)
	}
	var t harborTrial
	if err := json.Unmarshal(b, &t); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			bad(te.Field, "not a valid Harbor trial result.json: want %s, got a JSON %s", te.Type, te.Value)
		} else {
			bad("", "not a valid Harbor trial result.json: %v", err)
		}
		return
	}
	if t.TaskName == nil || *t.TaskName == "" {
		bad("task_name", "missing required field")
		return
	}
	if t.TrialName == nil || *t.TrialName == "" {
		bad("trial_name", "missing required field")
		return
	}
	job := l.harborJobOf(path)
	run := Run{RunID: job.name + "/" + *t.TrialName, TaskID: *t.TaskName, Benchmark: "harbor", Kind: "agent", SourceFile: path, SourceLine: 1}
	if t.Source != nil && *t.Source != "" {
		run.Benchmark = normalizeBenchmark(*t.Source)
	}
	if t.TaskChecksum != nil && *t.TaskChecksum != "" {
		run.TaskVersion = Some(*t.TaskChecksum)
	}

	// Agent and model.
	scaffold, model := "", ""
	if t.AgentInfo != nil {
		scaffold = t.AgentInfo.Name
		if mi := t.AgentInfo.ModelInfo; mi != nil && mi.Name != "" {
			model = mi.Name
			if mi.Provider != "" && !strings.Contains(mi.Name, "/") {
				model = mi.Provider + "/" + mi.Name
			}
		}
	}
	if c := t.Config; c != nil && c.Agent != nil {
		if scaffold == "" && c.Agent.Name != nil {
			scaffold = *c.Agent.Name
		}
		if c.Agent.ModelName != nil && *c.Agent.ModelName != "" {
			model = *c.Agent.ModelName
		}
	}
	if scaffold == "" {
		bad("agent_info.name", "missing: a Harbor trial names its agent in agent_info.name")
		return
	}
	run.Scaffold = Some(scaffold)
	run.Agent = scaffold
	if model != "" {
		run.Model = Some(model)
		run.Agent = scaffold + " + " + model
	}

	// Reward.
	reward, rewardField, err := harborReward(t.VerifierResult, l.opt.Scorer)
	if err != nil {
		bad(rewardField, "%s", err.Error())
		return
	}
	run.Score, run.RawScore = Some(reward), Some(reward)
	binary := reward == 0 || reward == 1
	if binary {
		run.ScoreBinarized = Some(int8(reward))
	}
	var outcome string
	switch exc := t.ExceptionInfo; {
	case reward == 1:
		outcome = "success"
	case exc != nil && harborTimeoutErrors[exc.ExceptionType]:
		outcome = "timeout"
	case exc != nil:
		outcome = "exec_error"
	case reward == 0:
		outcome = "wrong_result"
	}
	if outcome != "" {
		run.Outcome = Some(outcome)
	}
	if exc := t.ExceptionInfo; exc != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(exc.ExceptionMessage), "\n")
		et := exc.ExceptionType
		if first != "" {
			et += ": " + first
		}
		run.ErrorType = Some(truncate(et, 200))
	}

	// Tokens and cost.
	if ar := t.AgentResult; ar != nil {
		if ar.NInputTokens != nil || ar.NOutputTokens != nil {
			var n float64
			if ar.NInputTokens != nil {
				n += *ar.NInputTokens
			}
			if ar.NOutputTokens != nil {
				n += *ar.NOutputTokens
			}
			run.Tokens = Some(n)
		}
		if ar.CostUSD != nil {
			run.CostUSD = Some(*ar.CostUSD)
		}
	}

	// Times.
	for _, tf := range []struct {
		name string
		s    *string
		dst  *Opt[time.Time]
	}{{"started_at", t.StartedAt, &run.StartedAt}, {"finished_at", t.FinishedAt, &run.CompletedAt}} {
		if tf.s == nil || *tf.s == "" {
			continue
		}
		tm, err := parseISOTime(*tf.s)
		if err != nil {
			bad(tf.name, "want an ISO 8601 time, got %q", *tf.s)
			return
		}
		if !hasZone(*tf.s) && !job.naiveWarn {
			job.naiveWarn = true
			l.warn(path, "Harbor job %q writes times without a UTC offset (local time of the machine that ran it); read as UTC: durations are right, absolute times may be shifted", job.name)
		}
		*tf.dst = Some(tm)
	}
	if run.Extras, err = extrasWithout(b, append(harborMapped, rewardField)...); err != nil {
		bad("", "not a valid Harbor trial result.json: %v", err)
		return
	}
	if err := l.finishRun(&run, ReaderHarbor); err != nil {
		l.reject(st, lineError(&source{path: path, line: 1}, 1, err), b)
		return
	}
	l.addRun(&run, st)
}

// harborMapped are the fields of a trial result.json that a column holds
// as they are; the rest are the run's extras (with the reward scored,
// which harborReward names). The token counts stay: tokens is their sum.
var harborMapped = []string{"task_name", "trial_name", "source", "task_checksum", "agent_info.name",
	"config.agent.model_name", "agent_result.cost_usd", "exception_info.exception_type", "started_at", "finished_at"}

// harborReward picks the reward that is the score (see the file comment):
// key names a rewards key when set. It returns the reward's field (with
// an error, the field at fault).
func harborReward(v *struct {
	Rewards map[string]json.RawMessage `json:"rewards"`
}, key string) (float64, string, error) {
	if v == nil || v.Rewards == nil {
		return 0, "", nil // no verifier result: Harbor's Mean counts 0
	}
	rw := v.Rewards
	if key == "" {
		switch _, ok := rw["reward"]; {
		case len(rw) == 1:
			for k := range rw {
				key = k
			}
		case ok:
			key = "reward"
		case len(rw) == 0:
			return 0, "verifier_result.rewards", fmt.Errorf("empty rewards: want one reward, or a %q key", "reward")
		default:
			return 0, "verifier_result.rewards", fmt.Errorf("%d rewards (%s) and no %q key: name the one that is the score with --scorer KEY (Harbor's Mean metric rejects these too)",
				len(rw), strings.Join(sortedKeys(rw), ", "), "reward")
		}
	}
	raw, ok := rw[key]
	if !ok {
		return 0, "verifier_result.rewards", fmt.Errorf("no reward %q (--scorer); the trial has %s", key, strings.Join(sortedKeys(rw), ", "))
	}
	field := "verifier_result.rewards." + key
	var f *float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, field, fmt.Errorf("want a number, got %s", truncate(string(raw), 40))
	}
	if f == nil {
		return 0, field, fmt.Errorf("null reward: want a number")
	}
	if math.IsNaN(*f) || math.IsInf(*f, 0) {
		return 0, field, fmt.Errorf("want a finite number, got %v", *f)
	}
	return *f, field, nil
}

// hasZone reports whether an ISO 8601 time ends with Z or a ±HH:MM offset.
func hasZone(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "Z") || strings.HasSuffix(s, "z") {
		return true
	}
	if len(s) >= 6 {
		tail := s[len(s)-6:]
		return (tail[0] == '+' || tail[0] == '-') && tail[3] == ':'
	}
	return false
}
