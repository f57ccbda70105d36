package door_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/talops/talops/internal/door"
)

// live are the lines a runner would take for a workflow command: `##[` anywhere, `::` at
// the start after whitespace (the runner splits lines at \r and \n).
func live(log string) []string {
	var out []string

	for _, line := range regexp.MustCompile(`\r\n|\r|\n`).Split(log, -1) {
		if strings.Contains(line, "##[") || strings.HasPrefix(strings.TrimLeft(line, " \t\v\f\u00a0\u2003"), "::") {
			out = append(out, line)
		}
	}

	return out
}

func TestInert_ContentCarriesNoWorkflowCommand(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"add-mask anywhere in a line", "+    content: x ##[add-mask]x\n"},
		{"a command after leading spaces", "      ::warning::forged\n"},
		{"a command after a tab", "\t::error file=a::forged\n"},
		{"a command at the very start", "::stop-commands::token\n"},
		{"a command after a carriage return", "fine\r::warning::forged\n"},
		{"a command after a no-break space", "\u00a0::warning::forged"},
		{"several on one line", "##[group]a ##[endgroup] ##[set-output name=x]y"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := live(door.Inert(tc.in)); len(got) != 0 {
				t.Errorf("live commands left: %q", got)
			}

			if got := strings.ReplaceAll(door.Inert(tc.in), "\u200b", ""); got != tc.in {
				t.Errorf("the text changed beyond the breaks: %q", got)
			}
		})
	}
}

func TestInert_JSONKeepsItsData(t *testing.T) {
	in, _ := json.Marshal(map[string]string{"diff": "##[add-mask]x\n  ::warning::forged\n"})

	out := door.Inert(string(in))
	if got := live(out); len(got) != 0 {
		t.Errorf("live commands left: %q", got)
	}

	var back map[string]string
	if err := json.Unmarshal([]byte(out), &back); err != nil || back["diff"] != "##[add-mask]x\n  ::warning::forged\n" {
		t.Errorf("decoded %q, %v", back["diff"], err)
	}
}

func TestInert_LeavesOrdinaryTextAlone(t *testing.T) {
	for _, s := range []string{"Plan: 6 nodes — no changes\n", "time 12:00:01 on host::a\n", "url https://pve.lab:8006/api2/json\n", "# [heading]\n"} {
		if got := door.Inert(s); got != s {
			t.Errorf("Inert(%q) = %q", s, got)
		}
	}
}

func TestDeps_OutAndErrfPrintInertText(t *testing.T) {
	var stdout, stderr bytes.Buffer

	d := &door.Deps{Stdout: &stdout, Stderr: &stderr}

	if err := d.Out("    ::warning::forged\n"); err != nil {
		t.Fatal(err)
	}

	d.Errf("talops: %s\n", "node says ##[add-mask]x")

	if got := live(stdout.String() + stderr.String()); len(got) != 0 {
		t.Errorf("live commands printed: %q", got)
	}
}
