package app

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"filippo.io/age"
	"github.com/siderolabs/talos/pkg/machinery/config"
	gensecrets "github.com/siderolabs/talos/pkg/machinery/config/generate/secrets"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/scaffold"
	"github.com/talops/talops/internal/secrets"
	"github.com/talops/talops/internal/secrets/sops"
)

// InitOptions are what a new repository is made from.
type InitOptions struct {
	Dir      string
	Name     string
	Endpoint string
	// TalosVersion and KubernetesVersion default to the newest stable Talos release of the
	// release data and the newest Kubernetes it supports.
	TalosVersion      string
	KubernetesVersion string
	// Recipients are age X25519 recipients the bundle is encrypted to.
	Recipients []string
	// Plaintext writes the bundle in clear instead (scaffold.PlaintextBundle).
	Plaintext bool
	// NoHostnames leaves each node's hostname to Talos instead of a patch that sets it to
	// the node's name (scaffold.Spec.NoHostnames).
	NoHostnames bool
}

// InitResult says what init wrote.
type InitResult struct {
	// Written are the paths written, Kept those that existed and were left as they were.
	Written, Kept []string
	// Bundle is the path of the secrets bundle; Encrypted says whether it is.
	Bundle    string
	Encrypted bool
	// Recipients is how many age recipients the bundle is encrypted to.
	Recipients        int
	TalosVersion      string
	KubernetesVersion string
}

// ExistsError is a file init or talosconfig refuses to overwrite.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return e.Path + " exists: talops does not overwrite it (move it away or pick another path)"
}

// RecipientError is an age recipient that does not parse; Index counts from 1. The value is
// never quoted: it could be a secret key pasted by mistake.
type RecipientError struct {
	Index  int
	Reason string
}

func (e *RecipientError) Error() string {
	return fmt.Sprintf("age recipient %d: %s", e.Index, e.Reason)
}

// ParseRecipients reads age X25519 recipients.
func ParseRecipients(values []string) ([]*age.X25519Recipient, error) {
	out := make([]*age.X25519Recipient, 0, len(values))

	for i, v := range values {
		r, err := sops.ParseRecipient(v)
		if err != nil {
			return nil, &RecipientError{Index: i + 1, Reason: err.Error()}
		}

		out = append(out, r)
	}

	return out, nil
}

// Init writes the repository of a new cluster into opts.Dir: talops.yaml with one control
// plane and one worker to edit, a schematic, a patch, .sops.yaml, .gitignore and a fresh
// secrets bundle, encrypted to the recipients unless Plaintext. It refuses to overwrite
// talops.yaml or the bundle; the other files are kept when they exist.
func Init(_ context.Context, d *Deps, opts InitOptions) (*InitResult, error) {
	recipients, err := ParseRecipients(opts.Recipients)
	if err != nil {
		return nil, err
	}

	if !opts.Plaintext && len(recipients) == 0 {
		return nil, &UsageError{Msg: "an encrypted bundle needs an age recipient (or ask for a plaintext bundle)"}
	}

	talos, kubernetes, err := initVersions(opts.TalosVersion, opts.KubernetesVersion)
	if err != nil {
		return nil, err
	}

	spec := scaffold.Spec{
		Name: opts.Name, Endpoint: opts.Endpoint, TalosVersion: talos, KubernetesVersion: kubernetes,
		Recipients: opts.Recipients, Plaintext: opts.Plaintext, NoHostnames: opts.NoHostnames,
	}

	files, err := scaffold.Files(spec)
	if err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}

	for _, name := range []string{cluster.FileName, spec.BundleFile()} {
		if err := refuseExisting(d, filepath.Join(opts.Dir, name)); err != nil {
			return nil, err
		}
	}

	bundle, err := newInitBundle(d, spec, recipients)
	if err != nil {
		return nil, err
	}

	res := &InitResult{
		Bundle: filepath.Join(opts.Dir, spec.BundleFile()), Encrypted: !opts.Plaintext, Recipients: len(recipients),
		TalosVersion: talos, KubernetesVersion: kubernetes,
	}

	// The bundle first: should it fail, no talops.yaml names a missing file.
	all := append([]scaffold.File{{Path: spec.BundleFile(), Data: bundle}}, files...)

	for _, f := range all {
		path := filepath.Join(opts.Dir, filepath.FromSlash(f.Path))

		if err := d.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
		}

		perm := fs.FileMode(0o644)
		if f.Path == scaffold.PlaintextBundle {
			perm = 0o600
		}

		err := d.CreateFile(path, f.Data, perm)

		switch {
		case errors.Is(err, fs.ErrExist) && f.Path != cluster.FileName && f.Path != spec.BundleFile():
			res.Kept = append(res.Kept, path)
		case errors.Is(err, fs.ErrExist):
			return nil, &ExistsError{Path: path}
		case err != nil:
			return nil, fmt.Errorf("write %s: %w", path, err)
		default:
			res.Written = append(res.Written, path)
		}
	}

	return res, nil
}

// initVersions fills in the default versions and checks that they go together.
func initVersions(talos, kubernetes string) (string, string, error) {
	var err error

	if talos == "" {
		if talos, err = catalog.Embedded().NewestStable(); err != nil {
			return "", "", err
		}
	} else if talos, err = catalog.NormalizeTag(talos); err != nil {
		return "", "", &UsageError{Msg: "Talos version: " + err.Error()}
	}

	if kubernetes == "" {
		if kubernetes, err = catalog.NewestKubernetes(talos); err != nil {
			return "", "", &UsageError{Msg: err.Error()}
		}
	} else if kubernetes, err = catalog.NormalizeTag(kubernetes); err != nil {
		// Written as given, "1.37.1" would pass here and fail in talops.yaml.
		return "", "", &UsageError{Msg: "Kubernetes version: " + err.Error()}
	}

	if err := catalog.CheckKubernetes(talos, kubernetes); err != nil {
		return "", "", &UsageError{Msg: err.Error()}
	}

	return talos, kubernetes, nil
}

// newInitBundle generates the cluster's secrets for the Talos version's contract and encodes
// them, encrypted unless the spec says plaintext. Its values are masked from then on.
func newInitBundle(d *Deps, spec scaffold.Spec, recipients []*age.X25519Recipient) ([]byte, error) {
	contract, err := config.ParseContractFromVersion(spec.TalosVersion)
	if err != nil {
		return nil, fmt.Errorf("version contract of Talos %s: %w", spec.TalosVersion, err)
	}

	now, err := clock(d)
	if err != nil {
		return nil, err
	}

	b, err := gensecrets.NewBundle(gensecrets.NewFixedClock(now), contract)
	if err != nil {
		return nil, fmt.Errorf("generate the secrets bundle: %w", err)
	}

	d.mask((&secrets.Bundle{Bundle: b}).Values()...)

	if spec.Plaintext {
		return scaffold.PlaintextBundleYAML(b, spec.Name)
	}

	random := rand.Reader
	if d.Rand != nil {
		random = d.Rand
	}

	return scaffold.EncryptedBundleYAML(b, recipients, now, random)
}

// clock reads the time for what init and talosconfig sign and seal: they have no default.
func clock(d *Deps) (time.Time, error) {
	if d.Now == nil {
		return time.Time{}, errors.New("app: no clock (Deps.Now) to date certificates and secrets with")
	}

	return d.Now(), nil
}

// refuseExisting fails when path exists, or cannot be told apart from existing.
func refuseExisting(d *Deps, path string) error {
	_, err := d.ReadFile(path)

	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err == nil:
		return &ExistsError{Path: path}
	default:
		return fmt.Errorf("check %s: %w", path, err)
	}
}
