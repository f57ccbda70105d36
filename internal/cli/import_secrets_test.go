package cli_test

import (
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"filippo.io/age"
	"github.com/siderolabs/talos/pkg/machinery/config"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/secrets/sops"
)

// sopsSource is the flatops repository with its talsecret encrypted to id, as a
// talhelper user keeps it (talsecret.sops.yaml).
func sopsSource(t *testing.T, id *age.X25519Identity) (dir string, values []string) {
	t.Helper()

	dir = filepath.Join(t.TempDir(), "talos")
	if err := os.CopyFS(dir, os.DirFS(talhelperTestdata("jfroy-flatops"))); err != nil {
		t.Fatal(err)
	}

	plain := readFile(t, filepath.Join(dir, "talsecret.yaml"))

	enc, err := sops.Encrypt(plain, sops.EncryptOptions{Recipients: []*age.X25519Recipient{id.Recipient()}, Now: time.Unix(0, 0), Rand: rand.Reader})
	if err != nil {
		t.Fatal(err)
	}

	if err := os.Remove(filepath.Join(dir, "talsecret.yaml")); err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(filepath.Join(dir, "talsecret.sops.yaml"), enc, 0o600); err != nil {
		t.Fatal(err)
	}

	contract, err := config.ParseContractFromVersion("v1.13.7")
	if err != nil {
		t.Fatal(err)
	}

	b, err := secrets.Parse(plain, contract)
	if err != nil {
		t.Fatal(err)
	}

	return dir, (&secrets.Bundle{Bundle: b}).Values()
}

func TestImportTalhelper_SOPSSourceKeepsItsRecipientsAndItsSecrets(t *testing.T) {
	id, keyFile := ageKey(t)
	src, values := sopsSource(t, id)

	h := newDiskHarness(t)
	h.env["SOPS_AGE_KEY_FILE"] = keyFile

	repo, rendered, out := importAndRender(t, h, src)

	bundle := readFile(t, filepath.Join(repo, "secrets.sops.yaml"))
	if !sops.IsEncrypted(bundle) {
		t.Fatal("the imported bundle is not SOPS-encrypted")
	}

	recipients, err := sops.Recipients(bundle)
	if err != nil {
		t.Fatal(err)
	}

	if want := []string{id.Recipient().String()}; !slices.Equal(recipients, want) {
		t.Errorf("bundle recipients = %v, want the source's %v", recipients, want)
	}

	if rule := string(readFile(t, filepath.Join(repo, ".sops.yaml"))); !strings.Contains(rule, id.Recipient().String()) {
		t.Errorf(".sops.yaml does not encrypt to the source's recipient:\n%s", rule)
	}

	// Rendered with the imported bundle, the configs are talhelper's: the same secrets.
	compareNodes(t, rendered, filepath.Join(talhelperTestdata("jfroy-flatops"), "talhelper-genconfig"), talhelperCaseOf("jfroy-flatops"))

	for _, v := range values {
		if strings.Contains(out+h.stderr.String(), v) {
			t.Fatal("import printed a value of the secrets bundle")
		}
	}
}

func TestImportTalhelper_SOPSSourceWithoutAKeyIsRefusedWithoutWriting(t *testing.T) {
	id, _ := ageKey(t)
	src, _ := sopsSource(t, id)

	h := newDiskHarness(t)
	out := filepath.Join(t.TempDir(), "repo")

	err := h.run("import", "talhelper", "--from", src, "--out", out)

	var usage *app.UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "talsecret.sops.yaml is SOPS-encrypted and no age key is set") {
		t.Fatalf("want a usage error naming the file and the missing key, got %v", err)
	}

	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("import wrote %s anyway", out)
	}
}

func TestImportTalhelper_PlainSourceNeedsARecipientOrPlaintext(t *testing.T) {
	h := newDiskHarness(t)

	err := h.run("import", "talhelper", "--from", talhelperTestdata("jfroy-flatops"), "--out", filepath.Join(t.TempDir(), "repo"))

	var usage *app.UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "give an age recipient") {
		t.Fatalf("want a usage error asking for a recipient, got %v", err)
	}
}

func TestImportTalhelper_NeverWritesOverARepository(t *testing.T) {
	h := newDiskHarness(t)
	repo, _, _ := importAndRender(t, h, talhelperTestdata("jfroy-flatops"), "--plaintext-secrets")
	before := readFile(t, filepath.Join(repo, "talops.yaml"))

	err := h.run("import", "talhelper", "--from", talhelperTestdata("jfroy-flatops"), "--out", repo, "--plaintext-secrets")

	var exists *app.ExistsError
	if !errors.As(err, &exists) {
		t.Fatalf("want an exists error, got %v", err)
	}

	if after := readFile(t, filepath.Join(repo, "talops.yaml")); string(after) != string(before) {
		t.Fatal("talops.yaml was changed")
	}
}

// TestImportTalhelper_EncryptedTalenvIsReadAndNeverPrinted: talenv.sops.yaml is decrypted
// with the age key as talhelper does; its values land in the imported files, with a
// warning naming the variable, and never in the output.
func TestImportTalhelper_EncryptedTalenvIsReadAndNeverPrinted(t *testing.T) {
	id, keyFile := ageKey(t)
	src := filepath.Join(t.TempDir(), "talos")

	if err := os.CopyFS(src, os.DirFS(talhelperTestdata("lukeevans-talos-cluster"))); err != nil {
		t.Fatal(err)
	}

	const passphrase = "luks-fallback-from-an-encrypted-talenv"

	enc, err := sops.Encrypt([]byte("TALOS_LUKS_FALLBACK: "+passphrase+"\n"), sops.EncryptOptions{Recipients: []*age.X25519Recipient{id.Recipient()}, Now: time.Unix(0, 0), Rand: rand.Reader})
	if err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(filepath.Join(src, "talenv.sops.yaml"), enc, 0o600); err != nil {
		t.Fatal(err)
	}

	h := newDiskHarness(t)
	h.env["SOPS_AGE_KEY_FILE"] = keyFile

	repo, _, out := importAndRender(t, h, src, "--plaintext-secrets")

	if strings.Contains(out+h.stderr.String(), passphrase) {
		t.Fatal("import printed the value of an encrypted variable")
	}

	if !strings.Contains(out, "warning import.env-substituted ${TALOS_LUKS_FALLBACK}") {
		t.Errorf("no warning names the substituted variable:\n%s", out)
	}

	patch := filepath.Join(repo, "patches", "node-cr-talos-01-01.yaml")
	if !strings.Contains(string(readFile(t, patch)), passphrase) {
		t.Errorf("%s does not hold the value talhelper would have substituted", patch)
	}
}
