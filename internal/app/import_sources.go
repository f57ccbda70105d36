package app

import (
	"crypto/rand"
	"fmt"
	"path/filepath"

	"filippo.io/age"
	"github.com/siderolabs/talos/pkg/machinery/config"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"
	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/scaffold"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/secrets/sops"
)

// bundleSource is the source's secrets bundle, decrypted: nil plain when it has none.
type bundleSource struct {
	file       string
	plain      []byte
	recipients []string
}

// hasAESCBC says the bundle holds an aescbcEncryptionSecret (older talhelper bundles do).
func (s *bundleSource) hasAESCBC() bool {
	if s.plain == nil {
		return false
	}

	var b struct {
		Secrets struct {
			AESCBC string `yaml:"aescbcencryptionsecret"`
		} `yaml:"secrets"`
	}

	return yaml.Unmarshal(s.plain, &b) == nil && b.Secrets.AESCBC != ""
}

// readBundleSource reads the first of names in dir, decrypting it with the age keys
// talops finds (SOPS_AGE_KEY, SOPS_AGE_KEY_FILE, sops' default key file).
func readBundleSource(d *Deps, dir string, names []string) (*bundleSource, error) {
	for _, n := range names {
		file := filepath.Join(dir, n)

		data, err := d.ReadFile(file)
		if err != nil {
			continue
		}

		plain, recipients, err := decryptSource(d, file, data)
		if err != nil {
			return nil, err
		}

		if err := BoundedYAML(file, plain); err != nil {
			return nil, err
		}

		return &bundleSource{file: file, plain: plain, recipients: recipients}, nil
	}

	return &bundleSource{}, nil
}

// decryptSource returns a file's plain contents and, when it was SOPS-encrypted, its
// age recipients.
func decryptSource(d *Deps, file string, data []byte) ([]byte, []string, error) {
	if !sops.IsEncrypted(data) {
		return data, nil, nil
	}

	ids, err := sops.IdentitiesFromEnv(d.Getenv, d.ReadFile)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: age key: %w", file, err)
	}

	if len(ids) == 0 {
		return nil, nil, &UsageError{Msg: file + " is SOPS-encrypted and no age key is set (SOPS_AGE_KEY or SOPS_AGE_KEY_FILE)"}
	}

	plain, err := sops.Decrypt(data, ids)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w: %w", file, secrets.ErrDecrypt, err)
	}

	recipients, err := sops.Recipients(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: recipients: %w", file, err)
	}

	return plain, recipients, nil
}

// talhelperEnv is the environment talhelper substitutes from: the process environment,
// overridden by the env files of the talconfig's directory, later files winning (talhelper
// sets each file's variables into its environment in that order).
func talhelperEnv(d *Deps, dir string) (func(string) (string, bool), error) {
	files := map[string]string{}

	for _, n := range talenvNames {
		file := filepath.Join(dir, n)

		data, err := d.ReadFile(file)
		if err != nil {
			continue
		}

		plain, recipients, err := decryptSource(d, file, data)
		if err != nil {
			return nil, err
		}

		if err := BoundedYAML(file, plain); err != nil {
			return nil, err
		}

		// What was encrypted is a secret: it is masked in everything talops prints.
		encrypted := recipients != nil

		var vars map[string]any
		if err := yaml.Unmarshal(plain, &vars); err != nil {
			return nil, fmt.Errorf("%s: not a YAML mapping of variables", file)
		}

		for k, v := range vars {
			files[k] = fmt.Sprint(v)
			if encrypted {
				d.mask(files[k])
			}
		}
	}

	return func(name string) (string, bool) {
		if v, ok := files[name]; ok {
			return v, true
		}

		v := d.Getenv(name)

		return v, v != ""
	}, nil
}

// importBundle is the new repository's bundle: the source's, re-encoded (encrypted unless
// plaintext), or a new one when the source has none (generated says so); plain is it in
// clear, for the import's own render.
func importBundle(d *Deps, spec scaffold.Spec, src *bundleSource, recipients []*age.X25519Recipient) (out, plain []byte, generated bool, err error) {
	contract, err := config.ParseContractFromVersion(spec.TalosVersion)
	if err != nil {
		return nil, nil, false, fmt.Errorf("version contract of Talos %s: %w", spec.TalosVersion, err)
	}

	now, err := clock(d)
	if err != nil {
		return nil, nil, false, err
	}

	var b *gensecrets.Bundle

	generated = src.plain == nil
	if generated {
		if b, err = gensecrets.NewBundle(gensecrets.NewFixedClock(now), contract); err != nil {
			return nil, nil, false, fmt.Errorf("generate the secrets bundle: %w", err)
		}
	} else if b, err = secrets.Parse(src.plain, contract); err != nil {
		return nil, nil, false, fmt.Errorf("%s: %w", src.file, err)
	}

	d.mask((&secrets.Bundle{Bundle: b}).Values()...)

	if plain, err = scaffold.PlaintextBundleYAML(b, spec.Name); err != nil || spec.Plaintext {
		return plain, plain, generated, err
	}

	random := rand.Reader
	if d.Rand != nil {
		random = d.Rand
	}

	out, err = scaffold.EncryptedBundleYAML(b, recipients, now, random)

	return out, plain, generated, err
}
