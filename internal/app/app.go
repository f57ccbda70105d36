// Package app is talops' application layer: it loads the states of a repository, asks the
// outside world what the pure core needs (release data, running nodes, Proxmox, the Image
// Factory) and runs the use cases (validate, plan, apply, versions, schematics, proxmox)
// with typed results. The doors (the CLI and the GitHub Action) map their inputs onto
// options, and format and print the results.
package app

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/talops/talops/internal/alertmanager"
	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/backupstore"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/gitrev"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/proxmox"
	"github.com/talops/talops/internal/secrets"
)

// Outside is every door to the outside a use case reaches through: files, environment,
// clock, git and the clients of the APIs. The doors fill it once (door.Deps embeds it) and
// hand it to the use cases whole.
type Outside struct {
	Getenv func(string) string
	// ReadFile reads files outside a repository directory (standalone configs,
	// talosconfigs, age keys).
	ReadFile func(string) ([]byte, error)
	// WriteFile writes files (rendered configs, release data), with exactly perm even when
	// the file exists.
	WriteFile func(name string, data []byte, perm os.FileMode) error
	// CreateFile writes a new file and fails with an error wrapping fs.ErrExist when the
	// file exists (init and talosconfig never overwrite); MkdirAll creates directories.
	CreateFile func(name string, data []byte, perm os.FileMode) error
	MkdirAll   func(name string, perm os.FileMode) error
	// Lstat looks at a path without following a symbolic link (nil: apply does not look
	// for links in the etcd snapshot's directory, and no Git work tree is looked for
	// around a credential written).
	Lstat func(name string) (os.FileInfo, error)
	// Getwd is the working directory: with Lstat, it finds the Git work tree a
	// credential would be written into, or the one an import's source lies in (nil: none
	// is looked for).
	Getwd func() (string, error)
	// EvalSymlinks resolves a path's symbolic links (nil: an import does not look where
	// its source's links lead).
	EvalSymlinks func(path string) (string, error)
	// Rand is the randomness of the secrets bundle's encryption (nil: crypto/rand).
	Rand io.Reader
	// OpenDir opens a repository directory.
	OpenDir func(dir string) (cluster.Files, func() error, error)
	// ListFiles lists the regular files below dir, recursively, as slash paths relative
	// to dir, in the order of a walk of sorted directory entries; a missing dir has none.
	ListFiles func(dir string) ([]string, error)
	// Git runs git (for a state at a ref, read into memory).
	Git gitrev.Runner
	// ImageFactory returns the client of the Image Factory at baseURL (talops.yaml's
	// imageFactory; nil: none may be reached).
	ImageFactory func(baseURL string) (*factory.Client, error)
	// Alertmanager returns the client of the Alertmanager at baseURL whose firing alerts
	// the matchers select (talops.yaml's alertmanager:; nil: none may be reached, and
	// apply refuses a repository that names one).
	Alertmanager func(baseURL string, matchers []string) (*alertmanager.Client, error)
	// TalosEndpoint maps a node address to the Talos API endpoint dialled when the
	// talosconfig context names no endpoints (nil: the address, on port 50000).
	TalosEndpoint func(address string) string
	// TalosTimeout bounds the reads of one node (0: talos.DefaultTimeout).
	TalosTimeout time.Duration
	// GateTimeout bounds apply's wait for a node to come back healthy (0: 10 minutes);
	// GateInterval is the pause between its checks (0: 5 seconds).
	GateTimeout, GateInterval time.Duration
	// Proxmox returns the client of a Proxmox VE API (nil: none may be reached).
	Proxmox func(cfg proxmox.Config) (proxmox.API, error)
	// Kube returns the client of a cluster's Kubernetes API from its admin kubeconfig
	// (nil: none may be reached, and apply drains nothing and takes no lock).
	Kube func(kubeconfig []byte) (Kube, error)
	// Hostname names the machine talops runs on, for who holds the apply lock (nil:
	// unknown).
	Hostname func() (string, error)
	// Now reads the clock (nil: the rollout's default).
	Now func() time.Time
	// ReleaseCache is the directory where releases learnt from an Image Factory are kept
	// between runs ("": none are kept).
	ReleaseCache string
	// BackupStore opens the store of backups a destination names, with an S3 bucket's
	// endpoint, region and environment (backupstore.OpenWith; nil: none may be reached).
	BackupStore func(dest string, o backupstore.Options) (backup.Store, error)
	// ReadSnapshot reads the etcd snapshot streamed from r to its end: what it holds, or
	// why etcd could not restore it (nil: no snapshot can be read).
	ReadSnapshot func(r io.Reader) (backup.Contents, error)
}

// Deps are the doors to the outside the use cases go through: the Outside the doors
// filled, and what the doors derive for the use cases from their own state.
type Deps struct {
	Outside

	// KubernetesAPI returns the Kubernetes side of a Kubernetes upgrade over the admin
	// kubeconfig that kubeconfig reads from a control plane (NewKubernetesAPI; nil: apply
	// refuses a plan that upgrades Kubernetes).
	KubernetesAPI KubernetesAPIFunc
	// UserAgent names talops to the APIs it calls.
	UserAgent string
	// Sleep waits between the checks of a wait (nil: a timer).
	Sleep func(ctx context.Context, d time.Duration) error

	// Mask registers secret values with the masker everything printed goes through, before
	// anything that could quote them runs; Masker is that masker.
	Mask   func(values ...string)
	Masker func() *mask.Masker
	// Secrets loads the secrets bundles.
	Secrets *secrets.Loader
	// Releases remembers what the Image Factory said about releases (nil: ask every time).
	Releases *Releases
	// Note prints a progress note beside the output (apply's preparations); nil drops it.
	Note func(text string)
}

func (d *Deps) note(text string) {
	if d.Note != nil {
		d.Note(text)
	}
}

func (d *Deps) mask(values ...string) {
	if d.Mask != nil {
		d.Mask(values...)
	}
}

func (d *Deps) masker() *mask.Masker {
	if d.Masker == nil {
		return nil
	}

	return d.Masker()
}

// UsageError is a request that cannot be run as given (conflicting or missing options).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// RefusedError says apply refused to act: no node was changed. Err, when set, is the
// failure that made it refuse (kept for errors.As: an input error names its file).
type RefusedError struct {
	Reasons []string
	Err     error
}

func (e *RefusedError) Error() string {
	reasons := e.Reasons
	if e.Err != nil {
		reasons = append(slices.Clone(reasons), e.Err.Error())
	}

	return "apply refused, no node was changed:\n" + strings.Join(reasons, "\n")
}

func (e *RefusedError) Unwrap() error { return e.Err }
