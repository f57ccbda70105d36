package archtest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `go install github.com/talops/talops/cmd/talops@vX.Y.Z` builds from go.mod and go.sum alone:
// it ignores go.work, refuses a go.mod with replace or exclude directives, and needs a
// checksum for every module go.mod requires. The replacements this repository builds with
// live in go.work (docs/releasing.md); these tests keep go.mod installable.

func TestGoMod_InstallableWithGoInstallAtVersion(t *testing.T) {
	t.Parallel()

	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}

	reqs, problems := installProblems(gomod, gosum)
	for _, p := range problems {
		t.Error(p)
	}
	// A parser that found nothing would pass any go.mod: talops requires Talos machinery.
	if !containsPath(reqs, "github.com/siderolabs/talos/pkg/machinery") {
		t.Errorf("go.mod: found no requirement of github.com/siderolabs/talos/pkg/machinery among %d", len(reqs))
	}
}

func TestGoMod_InstallProblemsNamesWhatGoInstallRefuses(t *testing.T) {
	t.Parallel()

	const sum = "example.com/a v1.0.0 h1:aaa=\nexample.com/a v1.0.0/go.mod h1:bbb=\n"

	tests := []struct {
		name  string
		gomod string
		gosum string
		want  []string
	}{
		{
			name:  "required and summed",
			gomod: "module m\n\ngo 1.26\n\nrequire example.com/a v1.0.0\n",
			gosum: sum,
		},
		{
			name:  "replace block",
			gomod: "module m\n\nrequire (\n\texample.com/a v1.0.0 // indirect\n)\n\nreplace (\n\texample.com/a => example.com/a v0.9.0\n)\n",
			gosum: sum,
			want:  []string{"go.mod:8: replace directive: go install pkg@version refuses it (put it in go.work)"},
		},
		{
			name:  "single-line replace and exclude",
			gomod: "module m\nrequire example.com/a v1.0.0\nreplace example.com/a => ../a\nexclude example.com/a v0.8.0\n",
			gosum: sum,
			want: []string{
				"go.mod:3: replace directive: go install pkg@version refuses it (put it in go.work)",
				"go.mod:4: exclude directive: go install pkg@version refuses it (put it in go.work)",
			},
		},
		{
			name:  "no h1 line at the required version",
			gomod: "module m\nrequire (\n\texample.com/a v1.1.0\n)\n",
			gosum: sum + "example.com/a v1.1.0/go.mod h1:ccc=\n",
			want:  []string{"go.sum: no h1: line for example.com/a v1.1.0, which go.mod requires"},
		},
		{
			name:  "no go.mod line",
			gomod: "module m\nrequire example.com/a v1.0.0\n",
			gosum: "example.com/a v1.0.0 h1:aaa=\n",
			want:  []string{"go.sum: no h1: line for example.com/a v1.0.0/go.mod, which go.mod requires"},
		},
		{
			name:  "quoted path and a comment after the version",
			gomod: "module m\nrequire \"example.com/a\" v1.0.0 // indirect\n",
			gosum: sum,
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			reqs, got := installProblems([]byte(tt.gomod), []byte(tt.gosum))
			if !containsPath(reqs, "example.com/a") {
				t.Errorf("requirements %v: want example.com/a", reqs)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

type requirement struct{ path, version string }

// installProblems reads the few go.mod statements that matter here by hand (no module
// parser is in talops' module graph): the requirements, and any replace or exclude.
func installProblems(gomod, gosum []byte) ([]requirement, []string) {
	var (
		reqs     []requirement
		problems []string
		block    string // the verb of the ( … ) block being read, if any
	)

	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		if block != "" && line == ")" {
			block = ""
			continue
		}

		verb, rest := block, line
		if block == "" {
			verb, rest, _ = strings.Cut(line, " ")
			rest = strings.TrimSpace(rest)
			if rest == "(" {
				block = verb
				continue
			}
		}

		switch verb {
		case "replace", "exclude":
			problems = append(problems, fmt.Sprintf("go.mod:%d: %s directive: go install pkg@version refuses it (put it in go.work)", n, verb))
		case "require":
			f := strings.Fields(rest)
			if len(f) == 2 {
				reqs = append(reqs, requirement{path: strings.Trim(f[0], `"`), version: f[1]})
			}
		}
	}

	summed := map[string]bool{}
	for _, l := range strings.Split(string(gosum), "\n") {
		if f := strings.Fields(l); len(f) == 3 && strings.HasPrefix(f[2], "h1:") {
			summed[f[0]+" "+f[1]] = true
		}
	}
	for _, r := range reqs {
		for _, v := range []string{r.version, r.version + "/go.mod"} {
			if !summed[r.path+" "+v] {
				problems = append(problems, fmt.Sprintf("go.sum: no h1: line for %s %s, which go.mod requires", r.path, v))
			}
		}
	}

	return reqs, problems
}

func containsPath(reqs []requirement, path string) bool {
	for _, r := range reqs {
		if r.path == path {
			return true
		}
	}
	return false
}
