package cli_test

import (
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/testlab"
)

// labSecrets returns every secret value of the reference lab's bundle.
func labSecrets(t *testing.T) []string {
	t.Helper()

	c := testlab.Load(t, testlab.Files(t))

	b, err := (&secrets.Loader{Getenv: testlab.NoEnv, Now: time.Now}).Load(c)
	if err != nil {
		t.Fatal(err)
	}

	values := b.Values()
	if len(values) < 8 {
		t.Fatalf("only %d secret values in the lab bundle", len(values))
	}

	return values
}

// assertNoSecrets fails when any known secret value appears in out.
func assertNoSecrets(t *testing.T, what, out string, values []string) {
	t.Helper()

	for _, v := range values {
		if strings.Contains(out, v) {
			t.Errorf("%s contains a secret value (%d characters)", what, len(v))
		}

		// A key is also caught in pieces: any 40-character run of it.
		for i := 0; i+40 <= len(v); i += 40 {
			if strings.Contains(out, v[i:i+40]) {
				t.Errorf("%s contains part of a secret value", what)

				break
			}
		}
	}
}

func TestNoSecretValueInAnyOutput(t *testing.T) {
	t.Parallel()

	values := labSecrets(t)

	// A patch that pastes a secret where it does not belong: machinery's error
	// about it must not echo the value back.
	leakyPatch := "machine:\n  tokne: " + values[0] + "\n"

	for _, tc := range []struct {
		name string
		args []string
		edit func(t *testing.T, files map[string][]byte)
	}{
		{name: "validate text", args: []string{"validate", "--dir", "examples/homelab"}},
		{name: "validate json", args: []string{"validate", "--dir", "examples/homelab", "--format", "json"}},
		{name: "validate github", args: []string{"validate", "--dir", "examples/homelab", "--format", "github"}},
		{name: "render", args: []string{"render", "--dir", "examples/homelab", "--out", "out"}},
		{
			name: "unknown key holding a secret",
			args: []string{"validate", "--dir", "examples/homelab", "--format", "json"},
			edit: func(t *testing.T, files map[string][]byte) { files["patches/worker.yaml"] = []byte(leakyPatch) },
		},
		{
			name: "unknown key holding a secret, render",
			args: []string{"render", "--dir", "examples/homelab", "--out", "out"},
			edit: func(t *testing.T, files map[string][]byte) { files["patches/worker.yaml"] = []byte(leakyPatch) },
		},
		{
			name: "secret pasted into a wrongly typed field",
			args: []string{"validate", "--dir", "examples/homelab"},
			edit: func(t *testing.T, files map[string][]byte) {
				files["patches/worker.yaml"] = []byte("machine:\n  nodeLabels: [" + values[1] + "]\n")
			},
		},
		{
			name: "broken secrets bundle",
			args: []string{"validate", "--dir", "examples/homelab"},
			edit: func(t *testing.T, files map[string][]byte) {
				s := string(files["secrets.THROWAWAY.yaml"])
				files["secrets.THROWAWAY.yaml"] = []byte(strings.Replace(s, "trustdinfo:", "trustdinfo: [", 1))
			},
		},
		{
			name: "bundle with a missing field",
			args: []string{"validate", "--dir", "examples/homelab"},
			edit: func(t *testing.T, files map[string][]byte) {
				s := string(files["secrets.THROWAWAY.yaml"])
				files["secrets.THROWAWAY.yaml"] = []byte(strings.Replace(s, "    bootstraptoken:", "    bootstraptokn:", 1))
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.Files(t)
			if tc.edit != nil {
				tc.edit(t, files)
			}

			h := newHarness(t, files, nil)
			_ = h.run(tc.args...)

			if h.stdout.Len()+h.stderr.Len() == 0 {
				t.Fatal("the command printed nothing: the scan would prove nothing")
			}

			assertNoSecrets(t, "stdout", h.stdout.String(), values)
			assertNoSecrets(t, "stderr", h.stderr.String(), values)
		})
	}
}

func TestNoSecretValueFromTheEnvironmentBundle(t *testing.T) {
	t.Parallel()

	values := labSecrets(t)
	files := testlab.Files(t)
	bundle := string(files["secrets.THROWAWAY.yaml"])
	testlab.Edit(t, files, "talops.yaml", "secrets: secrets.THROWAWAY.yaml\n", "")

	// The bundle arrives through TALOS_SECRETS, broken so that its parser complains.
	h := newHarness(t, files, map[string]string{"TALOS_SECRETS": strings.Replace(bundle, "certs:", "certs: [", 1)})
	_ = h.run("validate", "--dir", "examples/homelab")

	if !strings.Contains(h.stderr.String(), "TALOS_SECRETS") {
		t.Fatalf("stderr = %q", h.stderr.String())
	}

	assertNoSecrets(t, "stderr", h.stderr.String(), values)
}
