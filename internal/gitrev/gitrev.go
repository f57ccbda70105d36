// Package gitrev reads another state of a repository (a commit, a branch) from git,
// without touching the user's working tree or index.
package gitrev

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// ErrAbsent says the directory does not exist at the ref: it was added since (a new
// cluster in a pull request).
var ErrAbsent = errors.New("the directory does not exist at that ref")

// ErrNoGit says the git binary is missing (as in talops' container image).
var ErrNoGit = errors.New("git is not installed here: check the other state out into a directory (actions/checkout with ref and path) and compare against it")

// Runner runs git in a directory and returns its standard output.
type Runner func(ctx context.Context, dir string, args ...string) ([]byte, error)

// Exec runs the git binary.
func Exec(ctx context.Context, dir string, args ...string) ([]byte, error) {
	// The workspace of a container action belongs to another user than the container's
	// root: without safe.directory git refuses to read it.
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "safe.directory=*", "-C", dir}, args...)...)

	var stderr bytes.Buffer
	cmd.Stderr = &stderr

	out, err := cmd.Output()
	if errors.Is(err, exec.ErrNotFound) {
		return nil, ErrNoGit
	}

	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}

		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}

	return out, nil
}

// maxBytes bounds what one export may unpack.
const maxBytes = 256 << 20

// Export writes the files of dir (a directory inside a git work tree) as they are at ref
// into a new temporary directory under tmpRoot, and returns the path that corresponds
// to dir there. cleanup removes everything. Symbolic links are not exported.
func Export(ctx context.Context, git Runner, dir, ref, tmpRoot string) (exported string, cleanup func(), err error) {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return "", nil, fmt.Errorf("invalid git ref %q", ref)
	}

	prefix, err := git(ctx, dir, "rev-parse", "--show-prefix")
	if errors.Is(err, ErrNoGit) {
		return "", nil, err
	}

	if err != nil {
		return "", nil, fmt.Errorf("%s is not inside a git repository: %w", dir, err)
	}

	sub := strings.TrimSuffix(strings.TrimSpace(string(prefix)), "/")

	if _, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return "", nil, fmt.Errorf("git ref %q not found (fetch it first, e.g. actions/checkout with fetch-depth: 0)", ref)
	}

	if sub != "" {
		if _, err := git(ctx, topLevel(ctx, git, dir), "cat-file", "-e", ref+":"+sub); err != nil {
			return "", nil, fmt.Errorf("%s at %s: %w", dir, ref, ErrAbsent)
		}
	}

	args := []string{"archive", "--format=tar", ref}
	if sub != "" {
		args = append(args, "--", sub)
	}

	archive, err := git(ctx, topLevel(ctx, git, dir), args...)
	if err != nil {
		return "", nil, fmt.Errorf("read %s at %s: %w", dir, ref, err)
	}

	root, err := os.MkdirTemp(tmpRoot, "talops-rev-")
	if err != nil {
		return "", nil, err
	}

	cleanup = func() { _ = os.RemoveAll(root) }

	if err := untar(bytes.NewReader(archive), root); err != nil {
		cleanup()

		return "", nil, fmt.Errorf("unpack %s at %s: %w", dir, ref, err)
	}

	exported = filepath.Join(root, filepath.FromSlash(sub))
	if _, err := os.Stat(exported); err != nil {
		cleanup()

		return "", nil, fmt.Errorf("%s does not exist at %s", dir, ref)
	}

	return exported, cleanup, nil
}

func topLevel(ctx context.Context, git Runner, dir string) string {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return dir
	}

	return strings.TrimSpace(string(out))
}

func untar(r io.Reader, root string) error {
	tr := tar.NewReader(r)

	var total int64

	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}

		if err != nil {
			return err
		}

		name := path.Clean(h.Name)
		if name == "." || strings.HasPrefix(name, "../") || path.IsAbs(name) {
			continue
		}

		target := filepath.Join(root, filepath.FromSlash(name))

		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o700); err != nil {
				return err
			}
		case tar.TypeReg:
			total += h.Size
			if total > maxBytes {
				return fmt.Errorf("more than %d bytes", maxBytes)
			}

			if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
				return err
			}

			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			if err != nil {
				return err
			}

			if _, err := io.Copy(f, io.LimitReader(tr, h.Size)); err != nil {
				f.Close() //nolint:errcheck // the copy error matters more

				return err
			}

			if err := f.Close(); err != nil {
				return err
			}
		}
	}
}
