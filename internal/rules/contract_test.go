package rules_test

import (
	"strings"
	"testing"

	"github.com/talops/talops/internal/rules"
	"github.com/talops/talops/internal/testlab"
)

func TestContractChange_WarnsOnAMinorBumpUnlessConfigVersionIsPinned(t *testing.T) {
	// The lab as it ran 1.13, before its move to 1.14: the minor bump is the subject.
	base := input(t, testlab.On113(t))

	for _, tc := range []struct {
		name, talos string
		want        bool
	}{
		{"a patch bump keeps the contract", "talosVersion: v1.13.10", false},
		{"a minor bump moves it", "talosVersion: v1.14.1", true},
		{"a pinned configVersion keeps it", "talosVersion: v1.14.1\nconfigVersion: v1.13", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.On113(t)
			testlab.Unpin(t, files)
			testlab.Edit(t, files, "talops.yaml", "talosVersion: v1.13.9", tc.talos)

			got := false

			for _, f := range rules.CompareVersions(base, input(t, files)).Findings {
				if f.Code == rules.CodeContractChange {
					got = true

					if f.Line != 6 || f.Path != "talosVersion" {
						t.Errorf("finding not placed on talosVersion: %+v", f)
					}

					if !strings.Contains(f.Message, "for the v1.14 format") || !strings.Contains(f.Message, "add configVersion: v1.13 to keep") {
						t.Errorf("message does not name the formats as talops.yaml spells them: %s", f.Message)
					}
				}
			}

			if got != tc.want {
				t.Errorf("contract-change reported: %v, want %v", got, tc.want)
			}
		})
	}
}
