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
	"net/http"
	"os"
	"sync"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/mask"
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

// Deps are the doors to the outside every command goes through: the application's Outside,
// filled once, and what only the doors use (printing, prompting, GitHub, the runner's files).
type Deps struct {
	app.Outside

	Stdout io.Writer
	Stderr io.Writer
	// Chmod sets a directory's mode when it existed (MkdirAll does not).
	Chmod func(name string, perm os.FileMode) error
	// Remove deletes a file talops wrote before and no longer writes (render's stale nodes).
	Remove func(name string) error
	// AppendFile appends to a file (the runner's output file).
	AppendFile func(name string, data []byte) error
	// HTTPClient reaches GitHub.
	HTTPClient *http.Client
	// IsTerminal reports whether stdout is a terminal (colour is for terminals only).
	IsTerminal func() bool
	// Prompt asks the person at the terminal a question and returns the line answered
	// (nil: nobody can answer, as in CI or with a pipe on stdin).
	Prompt func(question string) (string, error)
	// Version is talops' own version (ResolveVersion); "" reports dev.
	Version string

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
		Outside:       d.Outside,
		KubernetesAPI: app.NewKubernetesAPI,
		UserAgent:     "talops/" + d.TalopsVersion(),
		Mask:          d.Mask, Masker: d.Masker, Secrets: d.Secrets(), Releases: &d.state().releases,
		Note: func(text string) { d.Errf("%s", text) },
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
