package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cli"
	"github.com/talops/talops/internal/talos/talostest"
	"github.com/talops/talops/internal/testlab"
)

// The pull request's comment hashes the plan against its base commit; after the merge,
// apply --reviewed-base checks that hash on the same plan, not on the live one.
func TestApply_PlanHashCheckedAgainstTheReviewedBase(t *testing.T) {
	g := newGitLab(t)
	lab, write, git := g.Dir, g.write, g.git

	base := testlab.Files(t)
	testlab.SetVersions(t, base, "v1.14.6", "")
	write(base)
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	git("tag", "reviewed-base")
	write(testlab.Files(t))
	git("commit", "-qam", "bump")

	ca := talostest.NewCA(t)
	talosconfig := filepath.Join(t.TempDir(), "talosconfig")
	if err := os.WriteFile(talosconfig, talostest.TalosconfigBytes(t, talostest.Talosconfig(t, "homelab", ca.PEM, ca.ClientCert(t))), 0o600); err != nil {
		t.Fatal(err)
	}

	down := talostest.Closed(t)

	run := func(args ...string) (string, string, error) {
		d := cli.OSDeps()

		var stdout, stderr bytes.Buffer
		d.Stdout, d.Stderr = &stdout, &stderr
		d.Getenv = func(k string) string {
			if k == "TALOSCONFIG" {
				return talosconfig
			}

			return ""
		}
		d.ImageFactory = nil
		d.TalosEndpoint = func(string) string { return down }

		err := cli.Run(context.Background(), d, args)

		return stdout.String(), stderr.String(), err
	}

	out, _, err := run("plan", "--dir", lab, "--base", "reviewed-base", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}

	var reviewed struct{ Hash string }
	if err := json.Unmarshal([]byte(out), &reviewed); err != nil || len(reviewed.Hash) != 64 {
		t.Fatalf("plan: %v\n%s", err, out)
	}

	// The right hash passes the check (the nodes being down still refuses the apply).
	_, stderr, err := run("apply", "--dir", lab, "--plan-hash", reviewed.Hash, "--reviewed-base", "reviewed-base")
	if cli.ExitCode(err) != cli.ExitFailure || strings.Contains(stderr, "differs from the one reviewed") || !strings.Contains(stderr, "not readable over the Talos API") {
		t.Errorf("reviewed hash: %v\n%s", err, stderr)
	}

	// Another hash is refused, naming the base it was checked against.
	_, stderr, _ = run("apply", "--dir", lab, "--plan-hash", strings.Repeat("0", 64), "--reviewed-base", "reviewed-base")
	if !strings.Contains(stderr, "the plan differs from the one reviewed: its hash against reviewed-base is "+reviewed.Hash) {
		t.Errorf("other hash:\n%s", stderr)
	}
}
