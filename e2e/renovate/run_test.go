//go:build renovate

package renovate

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// renovateBin is the renovate executable .ci/run installed; its Node is the first on PATH.
func renovateBin(t *testing.T) string {
	t.Helper()

	bin := os.Getenv("RENOVATE")
	if bin == "" {
		t.Fatal("RENOVATE is not set: .ci/run installs Renovate and names its executable there")
	}

	return bin
}

// presetServer serves the repository's preset over loopback http, so the test
// repository extends it by URL as a user's extends it by github>.
func presetServer(t *testing.T) string {
	t.Helper()

	data, err := os.ReadFile(filepath.Join("..", "..", "renovate", "talos.json5"))
	if err != nil {
		t.Fatal(err)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/talos.json5" {
			t.Errorf("preset server: unexpected request %s %s", r.Method, r.URL.Path)
			http.NotFound(w, r)

			return
		}

		w.Write(data) //nolint:errcheck // the client sees a short body
	}))
	t.Cleanup(srv.Close)

	return srv.URL + "/talos.json5"
}

// presetDatasource is the preset's custom datasource name with its URL replaced.
func presetDatasource(t *testing.T, name, url string) map[string]any {
	t.Helper()

	data, err := os.ReadFile(filepath.Join("..", "..", "renovate", "talos.json5"))
	if err != nil {
		t.Fatal(err)
	}

	var preset struct {
		CustomDatasources map[string]map[string]any `json:"customDatasources"`
	}

	if err := json.Unmarshal(data, &preset); err != nil {
		t.Fatalf("the preset is not strict JSON: %v", err)
	}

	ds, ok := preset.CustomDatasources[name]
	if !ok {
		t.Fatalf("the preset has no custom datasource %s", name)
	}

	ds["defaultRegistryUrlTemplate"] = url

	return ds
}

// proxyTrap is where every request that is not for loopback goes: HTTP_PROXY and
// HTTPS_PROXY name it and NO_PROXY spares only loopback, so a lookup that would leave
// the machine fails the test instead of reaching the network.
func proxyTrap(t *testing.T) string {
	t.Helper()

	var mu sync.Mutex

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()

		t.Errorf("Renovate tried to leave loopback: %s %s (host %s)", r.Method, r.URL, r.Host)
		http.Error(w, "no network in tests", http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)

	return srv.URL
}

// report is the part of Renovate's --report-type=file output the tests read.
type report struct {
	Repositories map[string]struct {
		Problems []struct {
			Level   int    `json:"level"` // bunyan's: 40 warn, 50 error
			Message string `json:"message"`
		} `json:"problems"`
		Branches     []branch `json:"branches"`
		PackageFiles map[string][]struct {
			PackageFile string `json:"packageFile"`
			Deps        []dep  `json:"deps"`
		} `json:"packageFiles"`
	} `json:"repositories"`
}

type branch struct {
	BranchName string    `json:"branchName"`
	PrTitle    string    `json:"prTitle"`
	Upgrades   []upgrade `json:"upgrades"`
}

type upgrade struct {
	DepName      string `json:"depName"`
	PackageFile  string `json:"packageFile"`
	CurrentValue string `json:"currentValue"`
	NewValue     string `json:"newValue"`
	NewDigest    string `json:"newDigest"`
	UpdateType   string `json:"updateType"`
}

type dep struct {
	DepName       string `json:"depName"`
	DepType       string `json:"depType"`
	CurrentValue  string `json:"currentValue"`
	CurrentDigest string `json:"currentDigest"`
	Datasource    string `json:"datasource"`
	SkipReason    string `json:"skipReason"`
	Updates       []struct {
		NewValue   string `json:"newValue"`
		NewDigest  string `json:"newDigest"`
		UpdateType string `json:"updateType"`
		BranchName string `json:"branchName"`
	} `json:"updates"`
}

// config is a run's configuration: the administrator's (global, RENOVATE_CONFIG_FILE)
// and the repository's renovate.json.
type config struct {
	global, repo map[string]any
}

// run copies the repository testdata/<name> into a fresh directory, writes its
// renovate.json (the preset by URL, then the test's own lines pointing lookups at the
// fakes), runs Renovate on it without a platform and returns its report.
func run(t *testing.T, name string, cfg config) report {
	t.Helper()

	bin := renovateBin(t)
	work := t.TempDir()
	repo := filepath.Join(work, "repo")

	if err := os.CopyFS(repo, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatalf("copy testdata/%s: %v", name, err)
	}

	writeJSON(t, filepath.Join(repo, "renovate.json"), cfg.repo)
	writeJSON(t, filepath.Join(work, "config.json"), cfg.global)

	// The local platform reads the repository from the working tree of a git checkout.
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", "-A")
	git(t, repo, "-c", "user.name=talops", "-c", "user.email=talops@example.invalid", "commit", "-q", "-m", "lab")

	reportPath := filepath.Join(work, "report.json")
	trap := proxyTrap(t)

	cmd := exec.Command(bin, "--platform=local", "--dry-run=lookup", "--report-type=file", "--report-path="+reportPath)
	cmd.Dir = repo
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + work,
		"LOG_LEVEL=debug",
		"LOG_FORMAT=json",
		"RENOVATE_CONFIG_FILE=" + filepath.Join(work, "config.json"),
		"RENOVATE_BASE_DIR=" + filepath.Join(work, "base"),
		"HTTP_PROXY=" + trap,
		"HTTPS_PROXY=" + trap,
		"NO_PROXY=127.0.0.1,localhost",
	}

	out, err := cmd.CombinedOutput()
	if werr := os.WriteFile(filepath.Join(work, "renovate.log"), out, 0o600); werr != nil {
		t.Fatal(werr)
	}

	if err != nil {
		t.Fatalf("renovate: %v\n%s", err, tail(out, 60))
	}

	raw, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatalf("renovate wrote no report: %v\n%s", err, tail(out, 60))
	}

	var r report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("report: %v", err)
	}

	if len(r.Repositories) != 1 {
		t.Fatalf("report has %d repositories, want the one checkout:\n%s", len(r.Repositories), raw)
	}

	for _, repo := range r.Repositories {
		for _, p := range repo.Problems {
			if p.Level >= 40 {
				t.Errorf("renovate reported a problem: level %d: %s", p.Level, p.Message)
			}
		}
	}

	if t.Failed() || testing.Verbose() {
		t.Logf("report:\n%s", raw)
	}

	return r
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()

	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()

	cmd := exec.Command("git", args...)
	cmd.Dir = dir

	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func tail(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}

	return strings.Join(lines, "\n")
}

// proposal is one value Renovate extracted (NewValue empty) or one update it proposes
// for it, with the branch, that is the pull request, it goes to.
type proposal struct {
	File, Dep, DepType, Current, NewValue, Branch string
}

// proposals flattens the report's regex-manager dependencies, sorted.
func proposals(t *testing.T, r report) []proposal {
	t.Helper()

	var out []proposal

	for _, repo := range r.Repositories {
		for _, pf := range repo.PackageFiles["regex"] {
			for _, d := range pf.Deps {
				if d.SkipReason != "" {
					t.Errorf("%s: %s skipped: %s", pf.PackageFile, d.DepName, d.SkipReason)
				}

				out = append(out, proposal{File: pf.PackageFile, Dep: d.DepName, DepType: d.DepType, Current: d.CurrentValue})

				for _, u := range d.Updates {
					out = append(out, proposal{pf.PackageFile, d.DepName, d.DepType, d.CurrentValue, u.NewValue, u.BranchName})
				}
			}
		}
	}

	slices.SortFunc(out, func(a, b proposal) int {
		return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
	})

	return out
}

func assertProposals(t *testing.T, got, want []proposal) {
	t.Helper()

	slices.SortFunc(want, func(a, b proposal) int {
		return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
	})

	if !slices.Equal(got, want) {
		t.Errorf("Renovate proposes:\n%s\nwant:\n%s", lines(got), lines(want))
	}
}

func lines(ps []proposal) string {
	var b strings.Builder

	for _, p := range ps {
		fmt.Fprintf(&b, "  %+v\n", p)
	}

	return b.String()
}
