// Package door is what talops' two doors, the command line and the GitHub Action, share:
// the dependencies every command reaches the outside through, the one exit-code table,
// and the errors it maps.
package door

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/gitrev"
	"github.com/talops/talops/internal/mask"
	"github.com/talops/talops/internal/proxmox"
	"github.com/talops/talops/internal/secrets"
)

// Exit codes, decided in one place (ExitCode).
const (
	ExitOK      = 0
	ExitFailure = 1
	// ExitChanges is only used by plan --detailed-exitcode.
	ExitChanges = 2
	// ExitOutsideWindow says apply changed nothing because no maintenance window is open.
	ExitOutsideWindow = 3
)

// Deps are the doors to the outside every command goes through.
type Deps struct {
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// ReadFile reads files outside a repository directory (standalone configs, age keys).
	ReadFile func(string) ([]byte, error)
	// WriteFile writes rendered files, with exactly perm even when the file exists.
	WriteFile func(name string, data []byte, perm os.FileMode) error
	// MkdirAll creates output directories; Chmod sets a directory's mode when it existed.
	MkdirAll func(name string, perm os.FileMode) error
	Chmod    func(name string, perm os.FileMode) error
	// Remove deletes a file talops wrote before and no longer writes (render's stale nodes).
	Remove func(name string) error
	// CreateFile writes a new file, failing (wrapping fs.ErrExist) when it exists: init and
	// talosconfig never overwrite.
	CreateFile func(name string, data []byte, perm os.FileMode) error
	// Rand is the randomness of the secrets bundle's encryption (nil: crypto/rand).
	Rand io.Reader
	// Lstat and Getwd find the Git work tree a credential would be written into (nil:
	// none is looked for; see RefuseExposed).
	Lstat func(name string) (fs.FileInfo, error)
	Getwd func() (string, error)
	// AppendFile appends to a file (the runner's output file).
	AppendFile func(name string, data []byte) error
	// OpenDir opens a repository directory.
	OpenDir func(dir string) (cluster.Files, func() error, error)
	// ListFiles lists the regular files below a directory (import topf reads patch
	// directories); ListDisk is the disk's.
	ListFiles func(dir string) ([]string, error)
	Now       func() time.Time
	// Git runs git (for --base REF).
	Git gitrev.Runner
	// HTTPClient reaches GitHub.
	HTTPClient *http.Client
	// ImageFactory returns the client of the Image Factory at baseURL (talops.yaml's
	// imageFactory). Nil means no factory may be reached; tests return a fake's client.
	ImageFactory func(baseURL string) (*factory.Client, error)
	// IsTerminal reports whether stdout is a terminal (colour is for terminals only).
	IsTerminal func() bool
	// Prompt asks the person at the terminal a question and returns the line answered
	// (nil: nobody can answer, as in CI or with a pipe on stdin).
	Prompt func(question string) (string, error)
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
	Kube func(kubeconfig []byte) (app.Kube, error)
	// Hostname names the machine talops runs on, for who holds the apply lock (nil:
	// unknown).
	Hostname func() (string, error)
	// Version is talops' own version (ResolveVersion); "" reports dev.
	Version string
	// ReleaseCache is the directory where releases learnt from an Image Factory are kept
	// between runs ("": none are kept).
	ReleaseCache string

	// FlagSet, when set, is handed every flag set a command makes (completion reads the
	// flags from them, so they are never listed twice).
	FlagSet func(fs *flag.FlagSet)

	// shared is the state of d and of every Deps derived from it: secrets masked through
	// one are masked in all, and the factory is asked about a release once.
	shared *shared
	// secrets is d's own: it reads d's environment.
	secrets *secrets.Loader
}

// shared is what Deps derived from one another have in common.
type shared struct {
	mu       sync.Mutex
	masker   *mask.Masker
	releases app.Releases
}

func (d *Deps) state() *shared {
	if d.shared == nil {
		d.shared = &shared{}
	}

	return d.shared
}

// OpenDisk opens a repository directory on disk.
func OpenDisk(dir string) (cluster.Files, func() error, error) {
	d, err := cluster.OpenDir(dir)
	if err != nil {
		return nil, nil, err
	}

	return d, d.Close, nil
}

// Secrets returns the bundle loader, built once.
func (d *Deps) Secrets() *secrets.Loader {
	if d.secrets == nil {
		d.secrets = &secrets.Loader{Getenv: d.Getenv, ReadFile: d.ReadFile, Now: d.Now}
	}

	return d.secrets
}

// Mask registers secret values; everything printed afterwards is masked.
func (d *Deps) Mask(values ...string) {
	st := d.state()

	st.mu.Lock()
	defer st.mu.Unlock()

	st.masker = mask.New(append(st.masker.Values(), values...)...)
}

// Masker is the masker in force.
func (d *Deps) Masker() *mask.Masker {
	st := d.state()

	st.mu.Lock()
	defer st.mu.Unlock()

	return st.masker
}

// WithEnv derives Deps whose environment reads overrides first, then d's. The derived
// Deps share d's masking and release answers, and load secrets from their own environment.
func (d *Deps) WithEnv(overrides map[string]string) *Deps {
	out := d.derive()
	getenv := d.Getenv
	out.Getenv = func(k string) string {
		if v, ok := overrides[k]; ok {
			return v
		}

		return getenv(k)
	}

	return out
}

// WithFile derives Deps whose ReadFile serves data as the file name, and d's files otherwise.
func (d *Deps) WithFile(name string, data []byte) *Deps {
	out := d.derive()
	readFile := d.ReadFile
	out.ReadFile = func(n string) ([]byte, error) {
		if n == name {
			return data, nil
		}

		return readFile(n)
	}

	return out
}

func (d *Deps) derive() *Deps {
	d.state()

	out := *d
	out.secrets = nil

	return &out
}

// App is what the application layer reaches the outside through: the same doors, the
// notes it prints going to stderr through the masker.
func (d *Deps) App() *app.Deps {
	return &app.Deps{
		Getenv: d.Getenv, ReadFile: d.ReadFile, WriteFile: d.WriteFile,
		CreateFile: d.CreateFile, MkdirAll: d.MkdirAll, Lstat: d.Lstat, Rand: d.Rand,
		OpenDir: d.OpenDir, ListFiles: d.ListFiles, Git: d.Git,
		ImageFactory: d.ImageFactory, TalosEndpoint: d.TalosEndpoint, TalosTimeout: d.TalosTimeout,
		GateTimeout: d.GateTimeout, GateInterval: d.GateInterval, Proxmox: d.Proxmox,
		Kube: d.Kube, Hostname: d.Hostname, KubernetesAPI: app.NewKubernetesAPI,
		UserAgent: "talops/" + d.TalopsVersion(), Now: d.Now,
		Mask: d.Mask, Masker: d.Masker, Secrets: d.Secrets(), Releases: &d.state().releases,
		ReleaseCache: d.ReleaseCache,
		Note:         func(text string) { d.Errf("%s", text) },
	}
}

// Color reports whether views may use colour: on a terminal, unless NO_COLOR is set.
func (d *Deps) Color() bool {
	return d.IsTerminal != nil && d.IsTerminal() && d.Getenv("NO_COLOR") == ""
}

// Out writes to stdout through the masker, inert (Inert): in a workflow, stdout is the
// step's log.
func (d *Deps) Out(s string) error {
	_, err := io.WriteString(d.Stdout, Inert(d.Masker().String(s)))

	return err
}

// Errf writes a line to stderr through the masker, inert as Out.
func (d *Deps) Errf(format string, args ...any) {
	fmt.Fprint(d.Stderr, Inert(d.Masker().String(fmt.Sprintf(format, args...)))) //nolint:errcheck // nowhere left to report a failed write to stderr
}

// RefusedError says apply refused to act: no node was changed.
type RefusedError = app.RefusedError

// FailedError says a command ran and found failures it already reported.
type FailedError struct{ Msg string }

func (e *FailedError) Error() string { return e.Msg }

// ChangesError says plan --detailed-exitcode found changes.
type ChangesError struct{}

func (e *ChangesError) Error() string { return "changes present" }

// ExitCode maps an error from Run to the process exit code.
func ExitCode(err error) int {
	var (
		changes *ChangesError
		outside *app.OutsideWindowError
	)

	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.As(err, &changes):
		return ExitChanges
	case errors.As(err, &outside):
		return ExitOutsideWindow
	default:
		return ExitFailure
	}
}

// View renders a view into memory and prints it masked, in one write.
func (d *Deps) View(render func(w io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}

	return d.Out(buf.String())
}

// CommandsView renders talops' own workflow commands (the github format of findings) and
// prints them masked but not inert: they are meant to reach the runner, and the view
// escapes the data they carry.
func (d *Deps) CommandsView(render func(w io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}

	_, err := io.WriteString(d.Stdout, d.Masker().String(buf.String()))

	return err
}

// DevVersion is what a binary reports when nothing says which source it was built from.
const DevVersion = "dev"

// TalopsVersion is the version talops reports: in version, the plan's footer and the user
// agent. Deps without one (tests) report dev.
func (d *Deps) TalopsVersion() string {
	if d.Version == "" {
		return DevVersion
	}

	return d.Version
}
