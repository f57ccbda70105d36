package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"filippo.io/age"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/rollout"
	"github.com/talops/talops/internal/secrets/sops"
	"github.com/talops/talops/internal/talos"
)

// snapshotSaver is what apply gives the rollout to save the etcd snapshot it takes before
// the first control-plane change: encrypted with age to the recipients of the cluster's
// SOPS file (a snapshot holds every Kubernetes Secret, so it is never written in the
// clear). With talops.yaml's backup: section it is streamed to the section's destination as
// a backup like talops backup's, manifest and all; without, into a new file of the backup
// directory. Nil when no snapshot is wanted or none can be encrypted (a note says so).
func snapshotSaver(d *Deps, opts ApplyOptions, c *cluster.Cluster, steps []rollout.Step) (func(context.Context, talos.Node) (string, error), error) {
	if opts.NoEtcdBackup || opts.DryRun || !changesControlPlane(steps) {
		return nil, nil
	}

	recipients, err := backupRecipients(opts.BackupRecipients, c)
	if err != nil {
		return nil, &RefusedError{Reasons: []string{"the etcd snapshot cannot be encrypted:"}, Err: err}
	}

	if len(recipients) == 0 {
		d.note("etcd snapshot: none taken: the secrets file is not SOPS/age-encrypted, so there is no recipient to encrypt it to (--etcd-backup-recipient R, or --no-etcd-backup)\n")

		return nil, nil
	}

	if c.Spec.Backup != nil {
		return backupSaver(d, opts, c, recipients)
	}

	dir := opts.EtcdBackup
	if dir == "" {
		if dir = defaultBackupDir(d); dir == "" {
			return nil, &RefusedError{Reasons: []string{"the etcd snapshot has nowhere to go: no $XDG_STATE_HOME or $HOME; pass --etcd-backup DIR or --no-etcd-backup"}}
		}
	}

	if err := noLinkIn(d.Lstat, dir); err != nil {
		return nil, &RefusedError{Reasons: []string{"the etcd snapshot's directory:"}, Err: err}
	}

	return func(ctx context.Context, n talos.Node) (string, error) {
		var buf bytes.Buffer

		w, err := age.Encrypt(&buf, recipients...)
		if err != nil {
			return "", err
		}

		if err := n.EtcdSnapshot(ctx, w); err != nil {
			return "", err
		}

		if err := w.Close(); err != nil {
			return "", err
		}

		if err := noLinkIn(d.Lstat, dir); err != nil {
			return "", err
		}

		if err := d.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("create %s: %w", dir, err)
		}

		now, err := clock(d)
		if err != nil {
			return "", err
		}

		path := filepath.Join(dir, fmt.Sprintf("%s-%s.etcd-snapshot.age", c.Spec.Cluster.Name, now.UTC().Format("20060102T150405Z")))
		if err := d.CreateFile(path, buf.Bytes(), 0o600); err != nil {
			return "", fmt.Errorf("write %s: %w", path, err)
		}

		return path, nil
	}, nil
}

// backupSaver streams the snapshot to the backup: section's destination as a backup.
func backupSaver(d *Deps, opts ApplyOptions, c *cluster.Cluster, recipients []age.Recipient) (func(context.Context, talos.Node) (string, error), error) {
	store, err := backupStore(d, c.Spec.Backup, "", S3Options{})
	if err != nil {
		return nil, &RefusedError{Reasons: []string{"the etcd snapshot's destination, talops.yaml's backup.to:"}, Err: err}
	}

	return func(ctx context.Context, n talos.Node) (string, error) {
		m, _, err := writeBackup(ctx, d, c, store, n, hostname(ctx, d, n), recipients, opts.Dir)
		if err != nil {
			return "", err
		}

		return store.String() + " as backup " + m.Name, nil
	}, nil
}

// hostname is the node's hostname, for the manifest ("" when it does not say).
func hostname(ctx context.Context, d *Deps, n talos.Node) string {
	cctx, cancel := context.WithTimeout(ctx, orDefault(d.TalosTimeout, talos.DefaultTimeout))
	defer cancel()

	if names, err := n.Hostnames(cctx); err == nil && len(names) > 0 {
		return names[0]
	}

	return ""
}

// changesControlPlane reports whether a running control plane is changed: only then is a
// snapshot taken (a new cluster has no etcd data yet).
func changesControlPlane(steps []rollout.Step) bool {
	return slices.ContainsFunc(steps, func(s rollout.Step) bool {
		return !s.NotSelected && s.Node.Role == cluster.RoleControlPlane && s.Node.Action != plan.Noop && s.Node.Action != plan.Create
	})
}

// backupRecipients are the recipients given, else those the cluster's SOPS file is
// encrypted to.
func backupRecipients(given []string, c *cluster.Cluster) ([]age.Recipient, error) {
	names := given

	if len(names) == 0 && c.Spec.Secrets != "" {
		data, _ := c.File(c.Spec.Secrets)

		var err error
		if names, err = sops.Recipients(data); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Path(c.Spec.Secrets), err)
		}
	}

	out := make([]age.Recipient, 0, len(names))

	for _, name := range names {
		r, err := sops.ParseRecipient(name)
		if err != nil {
			return nil, errors.New("an age recipient of the etcd snapshot is not an X25519 recipient (age1…)")
		}

		out = append(out, r)
	}

	return out, nil
}

// defaultBackupDir is where snapshots go without --etcd-backup: the user's state directory.
func defaultBackupDir(d *Deps) string {
	switch {
	case d.Getenv("XDG_STATE_HOME") != "":
		return filepath.Join(d.Getenv("XDG_STATE_HOME"), "talops", "etcd-backups")
	case d.Getenv("HOME") != "":
		return filepath.Join(d.Getenv("HOME"), ".local", "state", "talops", "etcd-backups")
	default:
		return ""
	}
}

// noLinkIn refuses a snapshot directory that is a symbolic link and, for a relative path
// (the action's talops-etcd-backups, in the workspace the merged commit fills), one below a
// symbolic link: a link committed there would send the snapshot, and the workflow's upload
// of the directory, wherever it points. An absolute path is the user's own choice up to
// its last element.
func noLinkIn(lstat func(string) (fs.FileInfo, error), dir string) error {
	if lstat == nil {
		return nil
	}

	clean := filepath.Clean(dir)

	paths := []string{clean}
	if !filepath.IsAbs(clean) {
		paths = paths[:0]

		parts := strings.Split(clean, string(filepath.Separator))
		for i := range parts {
			if parts[i] != ".." {
				paths = append(paths, filepath.Join(parts[:i+1]...))
			}
		}
	}

	for _, p := range paths {
		fi, err := lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			// Nothing there yet, nor below it.
			return nil
		}

		if err != nil {
			return fmt.Errorf("look at %s: %w", p, err)
		}

		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link: talops does not write the etcd snapshot through it (remove it, or name another directory for the snapshot)", p)
		}
	}

	return nil
}
