package cli_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/talops/talops/internal/app"
)

func TestImportFlags_BadCommandLinesAreOneUsageLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no source tool", []string{"import"}, "import needs the source tool"},
		{"an unknown tool", []string{"import", "kubespray", "--from", "a", "--out", "b"}, `unknown source "kubespray"`},
		{"no --from", []string{"import", "talhelper", "--out", "b"}, "--from is required"},
		{"no --out", []string{"import", "talhelper", "--from", "a"}, "--out is required"},
		{"plaintext and a recipient", []string{"import", "talhelper", "--from", "a", "--out", "b", "--plaintext-secrets", "--age-recipient", "age1x"}, "cannot be used together"},
		{"a recipient that is not one", []string{"import", "talhelper", "--from", "a", "--out", "b", "--age-recipient", "AGE-SECRET-KEY-1NOTAKEY"}, "--age-recipient: age recipient 1"},
		{"an argument", []string{"import", "talhelper", "--from", "a", "--out", "b", "extra"}, `unexpected argument "extra"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newDiskHarness(t)

			err := h.run(tc.args...)

			var usage *app.UsageError
			if !errors.As(err, &usage) {
				t.Fatalf("want a usage error, got %v", err)
			}

			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("want one line with %q, got %q", tc.want, err.Error())
			}

			if strings.Contains(h.stderr.String(), "NOTAKEY") {
				t.Fatal("the refused recipient was echoed")
			}
		})
	}
}

func TestImportFlags_MissingSourceNamesWhatWasLookedFor(t *testing.T) {
	h := newDiskHarness(t)

	err := h.run("import", "talhelper", "--from", t.TempDir(), "--out", t.TempDir()+"/repo", "--plaintext-secrets")
	if err == nil || !strings.Contains(err.Error(), "neither a readable file nor a directory holding talconfig.yaml") {
		t.Fatalf("want the missing talconfig named, got %v", err)
	}
}
