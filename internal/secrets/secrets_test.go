package secrets_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/secrets/sops"
	"github.com/talops/talops/internal/testlab"
)

func read(t *testing.T, name string) []byte {
	t.Helper()

	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}

	return data
}

// encryptedLab is the lab whose secrets file is the SOPS-encrypted copy of its bundle.
func encryptedLab(t *testing.T) *cluster.Cluster {
	t.Helper()

	files := testlab.Files(t)
	files["secrets.sops.yaml"] = read(t, "testdata/bundle.sops.yaml")
	testlab.Edit(t, files, "talops.yaml", "secrets: secrets.THROWAWAY.yaml", "secrets: secrets.sops.yaml")

	return testlab.Load(t, files)
}

func loader(env map[string]string) *secrets.Loader {
	return &secrets.Loader{
		Getenv:   func(k string) string { return env[k] },
		ReadFile: os.ReadFile,
		Now:      time.Now,
	}
}

func plainBundle(t *testing.T) *secrets.Bundle {
	t.Helper()

	b, err := loader(nil).Load(testlab.Load(t, testlab.Files(t)))
	if err != nil {
		t.Fatal(err)
	}

	return b
}

func TestLoad_SOPSFileDecryptsToTheSameBundle(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"key file": {"SOPS_AGE_KEY_FILE": "testdata/THROWAWAY-age-key.txt"},
		"key text": {"SOPS_AGE_KEY": string(read(t, "testdata/THROWAWAY-age-key.txt"))},
	} {
		t.Run(name, func(t *testing.T) {
			b, err := loader(env).Load(encryptedLab(t))
			if err != nil {
				t.Fatal(err)
			}

			if b.Throwaway || b.Source != "examples/homelab/secrets.sops.yaml" {
				t.Errorf("bundle from %q (throwaway %v)", b.Source, b.Throwaway)
			}

			if strings.Join(b.Values(), "|") != strings.Join(plainBundle(t).Values(), "|") {
				t.Error("decrypted bundle differs from the plain one")
			}
		})
	}
}

func TestLoad_SOPSFileWithoutKeyFallsBackToAThrowawayAndSaysWhy(t *testing.T) {
	b, err := loader(nil).Load(encryptedLab(t))
	if err != nil {
		t.Fatal(err)
	}

	if !b.Throwaway || !strings.Contains(b.Why, "no age key is set") {
		t.Errorf("throwaway %v, why %q", b.Throwaway, b.Why)
	}
}

func TestLoad_TamperedSOPSFileIsRefused(t *testing.T) {
	files := testlab.Files(t)
	enc := string(read(t, "testdata/bundle.sops.yaml"))
	// Swap two encrypted values: each still decrypts on its own only at its own path.
	i := strings.Index(enc, "token: ENC[")
	files["secrets.sops.yaml"] = []byte(enc[:i] + "token: ENC[AES256_GCM,data:AAAA" + enc[i+len("token: ENC[AES256_GCM,data:AAAA"):])
	testlab.Edit(t, files, "talops.yaml", "secrets: secrets.THROWAWAY.yaml", "secrets: secrets.sops.yaml")

	_, err := loader(map[string]string{"SOPS_AGE_KEY_FILE": "testdata/THROWAWAY-age-key.txt"}).Load(testlab.Load(t, files))
	if !errors.Is(err, secrets.ErrDecrypt) || !errors.Is(err, sops.ErrTampered) {
		t.Fatalf("err = %v, want a decrypt error for a tampered file", err)
	}

	if !strings.HasPrefix(err.Error(), "examples/homelab/secrets.sops.yaml: cannot decrypt secrets") {
		t.Errorf("error does not name the file: %v", err)
	}
}

func TestLoad_WrongKeyIsAnError(t *testing.T) {
	_, err := loader(map[string]string{"SOPS_AGE_KEY_FILE": "sops/testdata/THROWAWAY-age-key-2.txt"}).Load(encryptedLab(t))
	if !errors.Is(err, sops.ErrNoMatchingKey) {
		t.Fatalf("err = %v, want ErrNoMatchingKey", err)
	}
}

func TestLoad_EnvironmentBundleWins(t *testing.T) {
	bundle := read(t, testlab.Dir()+"/secrets.THROWAWAY.yaml")

	b, err := loader(map[string]string{secrets.EnvBundle: string(bundle)}).Load(encryptedLab(t))
	if err != nil {
		t.Fatal(err)
	}

	if b.Source != secrets.EnvBundle {
		t.Errorf("source %q", b.Source)
	}
}

func TestLoad_InvalidBundleNamesTheFieldNotTheValue(t *testing.T) {
	files := testlab.Files(t)
	testlab.Edit(t, files, "secrets.THROWAWAY.yaml", "    bootstraptoken:", "    bootstraptokn:")

	_, err := loader(nil).Load(testlab.Load(t, files))
	if err == nil || !strings.Contains(err.Error(), "secrets.bootstraptoken is required") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoad_InvalidBundleIsOneLineListingEveryProblem(t *testing.T) {
	_, err := loader(map[string]string{secrets.EnvBundle: "cluster: {id: x}\n"}).Load(testlab.Load(t, testlab.Files(t)))

	want := "TALOS_SECRETS: invalid secrets bundle: cluster.secret is required; secrets is required; trustdinfo is required; certs is required"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestLoad_MalformedBundleNamesLineAndFieldButNoValue(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{
			name: "a value of the wrong type",
			old:  "    token: 0cz2lz.6e4zzgagjbs71qmf",
			new:  "    token: [0cz2lz.6e4zzgagjbs71qmf]",
			want: "examples/homelab/secrets.THROWAWAY.yaml:10: trustdinfo.token: not a secrets bundle: a field has the wrong type (talosctl gen secrets format)",
		},
		{
			name: "YAML syntax",
			old:  "    token: 0cz2lz.6e4zzgagjbs71qmf",
			new:  "    token: 0cz2lz.6e4zzgagjbs71qmf: x",
			want: "examples/homelab/secrets.THROWAWAY.yaml:10: not a YAML secrets bundle (talosctl gen secrets format)",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := testlab.Files(t)
			testlab.Edit(t, files, "secrets.THROWAWAY.yaml", tc.old, tc.new)

			_, err := loader(nil).Load(testlab.Load(t, files))
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v, want %s", err, tc.want)
			}
		})
	}
}

func TestThrowaway_GeneratedOncePerLoader(t *testing.T) {
	files := testlab.Files(t)
	testlab.Edit(t, files, "talops.yaml", "secrets: secrets.THROWAWAY.yaml\n", "")
	c := testlab.Load(t, files)

	l := loader(nil)

	a, err := l.Load(c)
	if err != nil {
		t.Fatal(err)
	}

	b, err := l.Load(c)
	if err != nil {
		t.Fatal(err)
	}

	if a.Bundle != b.Bundle {
		t.Error("a second throwaway bundle was generated")
	}
}
