package auditcmd

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditRegressClaims: on the fixture, the gaussian GLM score ~ agent
// has intercept mean(a) = 0.3 and agenth = 0.5 − 0.3 = 0.2 (worked by hand:
// agent a's eight scores are 0.2/0.4, h's four are 0.5). Its SE is
// √(σ̂²·(1/8 + 1/4)) with σ̂² = RSS/df = 0.08/10, so the 95% Wald interval
// is 0.2 ± 1.959964·√0.003 = [0.092648, 0.307352]. R 4.2.2 agrees:
//
//	Rscript -e 'd<-data.frame(score=c(rep(c(.2,.4,.2,.4),2),rep(.5,4)),
//	  agent=c(rep("a",8),rep("h",4))); confint.default(glm(score~agent,data=d))'
//	agenth 0.09264835138 0.3073516486 (p = 4.451e-03)
//
// Tolerance 1e-6 absolute.
func TestAuditRegressClaims(t *testing.T) {
	dir := fixture(t)
	p := writeClaims(t, dir, `data: [runs.jsonl]
claims:
  - id: h-ahead
    text: "h scores 0.2 more than a"
    stat: {kind: regress, formula: "score ~ agent", family: gaussian, term: agenth}
    expect: {value: 0.2, abs_tol: 1e-9, min: 0.1}
  - id: h-significant
    stat: {kind: regress, formula: "score ~ agent", family: gaussian, term: agenth, measure: p}
    expect: {max: 0.05}
  - id: too-big
    stat: {kind: regress, formula: "score ~ agent", family: gaussian, term: agenth}
    expect: {min: 0.5}
  - id: no-term
    stat: {kind: regress, formula: "score ~ agent", family: gaussian, term: agentz}
    expect: {min: 0}
`)
	out, _, err := runCmd(t, p, "--format", "json")
	if err == nil || !strings.Contains(err.Error(), "too-big") {
		t.Fatalf("want the failing claim too-big named, got %v", err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]string{"h-ahead": verdictHolds, "h-significant": verdictHolds, "too-big": verdictFails, "no-term": verdictCannotCompute}
	for _, r := range rows {
		id := r["id"].(string)
		if r["verdict"] != want[id] {
			t.Errorf("%s: verdict %v (%v), want %s", id, r["verdict"], r["reason"], want[id])
		}
	}
	lo, _ := rows[0]["ci_low"].(float64)
	hi, _ := rows[0]["ci_high"].(float64)
	if math.Abs(lo-0.0926482) > 1e-6 || math.Abs(hi-0.3073518) > 1e-6 {
		t.Errorf("h-ahead CI [%v, %v], want [0.092648, 0.307352]", lo, hi)
	}
	if r, _ := rows[3]["reason"].(string); !strings.Contains(r, "agenth") {
		t.Errorf("no-term reason %q should list the model's terms", r)
	}

	for _, tc := range []struct{ stat, want string }{
		{`{kind: regress, formula: "score ~ 1 + (agent | task_id)", term: "(Intercept)"}`, "only random intercepts"},
		{`{kind: regress, formula: "score ~ 1 + (1 | task_id)", term: "(Intercept)", cluster: agent}`, "drop cluster"},
		{`{kind: regress, formula: "score ~ 1 + (1 | task_id) + (1 | agent)", term: "(Intercept)", nagq: 5}`, "single (1 | group) term"},
		{`{kind: regress, formula: "score ~ agent", term: "agenth", nagq: 5}`, "single (1 | group) term"},
	} {
		bad := writeClaims(t, dir, "data: [runs.jsonl]\nclaims:\n  - id: bad\n    stat: "+tc.stat+"\n    expect: {min: 0}\n")
		if _, _, err := runCmd(t, bad); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.stat, err, tc.want)
		}
	}
}

// TestAuditRegressMixedClaims: regress claims with a random intercept per
// task, on mixedFixture's 80 binary runs, against R 4.2.2 / lme4 1.1.31:
//
//	d <- jsonlite::stream_in(file("runs.jsonl")); d$y <- as.integer(d$final_success)
//	f <- glmer(y ~ agent + (1 | task_id), d, binomial, nAGQ = q,
//	           control = glmerControl(tolPwrss = 1e-12))
//	summary(f)$coefficients; confint(f, method = "Wald")
//
// nAGQ = 1: agentb 1.3971115325 (SE 0.5142670103, p 0.006593543534),
// 95% Wald [0.389166714, 2.40505635106], θ 0.7042205606;
// nAGQ = 5: agentb 1.3970723365, [0.3899415728, 2.40420310025].
// Tolerance 1e-3 relative (the GLMM tolerance), via rel_tol and
// checked on the reported CI.
func TestAuditRegressMixedClaims(t *testing.T) {
	dir := mixedFixture(t)
	p := writeClaims(t, dir, `data: [runs.jsonl]
claims:
  - id: b-better
    text: "agent b's log-odds of success are 1.40 above a's (GLMM, random intercept per task)"
    stat: {kind: regress, formula: "final_success ~ agent + (1 | task_id)", family: binomial, term: agentb}
    expect: {value: 1.3971115325, rel_tol: 1e-3, min: 0}
  - id: b-better-agq
    stat: {kind: regress, formula: "final_success ~ agent + (1 | task_id)", family: binomial, term: agentb, nagq: 5}
    expect: {value: 1.3970723365, rel_tol: 1e-3}
  - id: b-significant
    stat: {kind: regress, formula: "final_success ~ agent + (1 | task_id)", term: agentb, measure: p}
    expect: {value: 0.006593543534, rel_tol: 1e-2, max: 0.01}
  - id: b-huge
    stat: {kind: regress, formula: "final_success ~ agent + (1 | task_id)", term: agentb}
    expect: {min: 2.5}
`)
	out, _, err := runCmd(t, p, "--format", "json")
	if err == nil || !strings.Contains(err.Error(), "b-huge") {
		t.Fatalf("want the failing claim b-huge named, got %v", err)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]string{"b-better": verdictHolds, "b-better-agq": verdictHolds, "b-significant": verdictHolds, "b-huge": verdictFails}
	for _, r := range rows {
		id := r["id"].(string)
		if r["verdict"] != want[id] {
			t.Errorf("%s: verdict %v (%v), want %s", id, r["verdict"], r["reason"], want[id])
		}
	}
	for i, ci := range [][2]float64{{0.389166714, 2.40505635106}, {0.3899415728, 2.40420310025}} {
		lo, _ := rows[i]["ci_low"].(float64)
		hi, _ := rows[i]["ci_high"].(float64)
		if math.Abs(lo-ci[0]) > 1e-3*ci[0] || math.Abs(hi-ci[1]) > 1e-3*ci[1] {
			t.Errorf("%s CI [%v, %v], lme4 [%v, %v]", rows[i]["id"], lo, hi, ci[0], ci[1])
		}
	}
	if note, _ := json.Marshal(rows[1]); !strings.Contains(string(note), "nAGQ = 5") || !strings.Contains(string(note), "task_id (8 levels") {
		t.Errorf("note of the nAGQ claim: %s", note)
	}
}

// mixedFixture writes runs.jsonl with 8 tasks × 2 agents × 5 runs of binary
// final_success: task k succeeds in about 2·(k mod 4)/10 of a's runs plus
// 0.3 for b, a deterministic pattern (rows as in the R check below).
func mixedFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	n := 0
	for k := 0; k < 8; k++ {
		for _, agent := range []string{"a", "b"} {
			for r := 0; r < 5; r++ {
				n++
				thr := 2 * (k % 4)
				if agent == "b" {
					thr += 3
				}
				ok := (k*3+r*7+len(agent)*n)%10 < thr
				fmt.Fprintf(&b, `{"run_id":"r%d","benchmark":"synthetic","task_id":"t%d","agent":"%s","final_success":%v}`+"\n", n, k, agent, ok)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "runs.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
