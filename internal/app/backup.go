package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"filippo.io/age"
	"github.com/siderolabs/talos/pkg/machinery/config/configloader"

	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/plan"
	"github.com/talops/talops/internal/talos"
)

// BackupOptions are backup's inputs.
type BackupOptions struct {
	// Dir is the repository directory holding talops.yaml.
	Dir string
	// Talosconfig is the talosconfig file ("": $TALOSCONFIG, then ~/.talos/config).
	Talosconfig string
	// To is the destination ("": the user's state directory, BackupDestination).
	To string
	// Recipients are the age recipients to encrypt to (none: those of the cluster's SOPS
	// secrets file).
	Recipients []string
}

// BackupResult is a backup written: its manifest, where, and what its snapshot holds.
type BackupResult struct {
	Manifest backup.Manifest
	Store    string
	Contents backup.Contents
	// Passed over are the control planes not asked for the snapshot, and why.
	PassedOver []string
}

// Backup streams an etcd snapshot from a healthy member (a voting member whose etcd
// reports no error, asked in the order of talops.yaml), through SHA-256 and age encryption
// into the destination, reads it with etcd's code on the way (its revision and contents),
// then writes the manifest: the snapshot is a backup only once its manifest is there.
func Backup(ctx context.Context, d *Deps, opts BackupOptions) (*BackupResult, error) {
	c, err := loadCluster(d.OpenDir, opts.Dir, opts.Dir, nil)
	if err != nil {
		return nil, err
	}

	recipients, err := backupRecipients(opts.Recipients, c)
	if err != nil {
		return nil, err
	}

	if len(recipients) == 0 {
		return nil, errors.New("the backup has no age recipient to be encrypted to: the secrets file is not SOPS/age-encrypted (pass --recipient R)")
	}

	store, err := backupStore(d, opts.To)
	if err != nil {
		return nil, err
	}

	dl, err := dialer(d, opts.Talosconfig)
	if err != nil {
		return nil, err
	}

	n, name, passedOver, err := healthyMember(ctx, d, dl, c)
	if err != nil {
		return nil, err
	}
	defer n.Close() //nolint:errcheck // the snapshot is read

	now, err := clock(d)
	if err != nil {
		return nil, err
	}

	m := backup.Manifest{Name: backup.Name(c.Spec.Cluster.Name, now), Cluster: c.Spec.Cluster.Name, Time: now.UTC(), Node: name}
	m.Snapshot = m.Name + backup.SnapshotSuffix
	m.TalosVersion, m.KubernetesVersion = runningVersions(ctx, d, n)
	m.Commit = commit(ctx, d, opts.Dir)

	contents, err := streamSnapshot(ctx, d, n, store, m.Snapshot, recipients, &m)
	if err != nil {
		return nil, fmt.Errorf("back up etcd from %s: %w", name, err)
	}

	m.Revision = contents.Revision

	data, err := m.Encode()
	if err != nil {
		return nil, err
	}

	if err := store.Put(ctx, m.Name+backup.ManifestSuffix, bytes.NewReader(data)); err != nil {
		return nil, err
	}

	return &BackupResult{Manifest: m, Store: store.String(), Contents: contents, PassedOver: passedOver}, nil
}

// BackupDestination is where backups go and come from without --to or --from: the user's
// state directory, beside apply's snapshots.
func BackupDestination(d *Deps) string {
	if dir := defaultBackupDir(d); dir != "" {
		return filepath.Join(filepath.Dir(dir), "backups")
	}

	return ""
}

func backupStore(d *Deps, dest string) (backup.Store, error) {
	if dest == "" {
		if dest = BackupDestination(d); dest == "" {
			return nil, &UsageError{Msg: "backups have no default place: no $XDG_STATE_HOME or $HOME; name one with --to or --from"}
		}
	}

	if d.BackupStore == nil {
		return nil, errors.New("app: no backup store (Deps.BackupStore)")
	}

	return d.BackupStore(dest)
}

// healthyMember dials the control planes in order and returns the first whose etcd member
// votes and reports no error: a member outside quorum reports one ("etcdserver: no
// leader"), or cannot list the members at all.
func healthyMember(ctx context.Context, d *Deps, dl talos.Dialer, c *cluster.Cluster) (talos.Node, string, []string, error) {
	var passedOver []string

	for _, cp := range c.Spec.Nodes {
		if cp.Role != cluster.RoleControlPlane {
			continue
		}

		n, err := dl.Dial(ctx, cp.Address)
		if err == nil {
			if err = memberHealth(ctx, d, n); err == nil {
				return n, cp.Name, passedOver, nil
			}

			n.Close() //nolint:errcheck // passed over
		}

		passedOver = append(passedOver, fmt.Sprintf("%s (%s): %s", cp.Name, cp.Address, talos.OneLine(err)))
	}

	if len(passedOver) == 0 {
		return nil, "", nil, errors.New("talops.yaml has no control plane to take the etcd snapshot from")
	}

	return nil, "", passedOver, fmt.Errorf("no control plane has a healthy etcd member to take the snapshot from:\n%s", strings.Join(passedOver, "\n"))
}

func memberHealth(ctx context.Context, d *Deps, n talos.Node) error {
	cctx, cancel := context.WithTimeout(ctx, orDefault(d.TalosTimeout, talos.DefaultTimeout))
	defer cancel()

	members, err := n.EtcdMembers(cctx)
	if err != nil {
		return fmt.Errorf("etcd members: %w", err)
	}

	names, err := n.Hostnames(cctx)
	if err != nil {
		return fmt.Errorf("hostname: %w", err)
	}

	i := slices.IndexFunc(members, func(m talos.EtcdMember) bool { return slices.Contains(names, m.Hostname) })

	switch {
	case i < 0:
		return errors.New("not an etcd member")
	case members[i].Learner:
		return errors.New("a learner, not a voting etcd member")
	}

	errs, err := n.EtcdErrors(cctx)
	if err != nil {
		return fmt.Errorf("etcd status: %w", err)
	}

	if len(errs) > 0 {
		return fmt.Errorf("etcd reports %s", strings.Join(errs, "; "))
	}

	return nil
}

// runningVersions are the node's Talos version and its API server's Kubernetes version
// ("" for what it does not say).
func runningVersions(ctx context.Context, d *Deps, n talos.Node) (talosVersion, kubernetes string) {
	cctx, cancel := context.WithTimeout(ctx, orDefault(d.TalosTimeout, talos.DefaultTimeout))
	defer cancel()

	talosVersion, _ = n.Version(cctx)

	if data, err := n.MachineConfig(cctx); err == nil {
		if cfg, err := configloader.NewFromBytes(data); err == nil {
			kubernetes = plan.ImageVersion(plan.ComponentImage(cfg, plan.K8sAPIServer))
		}
	}

	return talosVersion, kubernetes
}

// commit is the repository's commit, "" outside a Git work tree or without git.
func commit(ctx context.Context, d *Deps, dir string) string {
	if d.Git == nil {
		return ""
	}

	out, err := d.Git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return ""
	}

	return strings.TrimSpace(string(out))
}

// streamSnapshot streams the snapshot through SHA-256 and age into the store and, at the
// same time, through etcd's reader: nothing holds it whole in memory. m gets its size and
// hash.
func streamSnapshot(ctx context.Context, d *Deps, n talos.Node, store backup.Store, object string, recipients []age.Recipient, m *backup.Manifest) (backup.Contents, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	sealedR, sealedW := io.Pipe()

	put := make(chan error, 1)

	go func() {
		err := store.Put(ctx, object, sealedR)
		// A store that stops reading unblocks the stream.
		sealedR.CloseWithError(orEOF(err))
		put <- err
	}()

	sealed, err := age.Encrypt(sealedW, recipients...)
	if err != nil {
		sealedW.CloseWithError(err)
		<-put //nolint:errcheck // the store failed because the encryption did

		return backup.Contents{}, err
	}

	hash := sha256.New()
	size := &counter{}
	plainW, read := readAlong(d)

	err = n.EtcdSnapshot(ctx, io.MultiWriter(hash, size, sealed, plainW))
	if err == nil {
		err = sealed.Close()
	}

	sealedW.CloseWithError(err)
	plainW.CloseWithError(err)

	putErr := <-put
	contents, readErr := read()

	// The stream's error first: a store or reader that failed made the stream fail with
	// its error, and a stream that failed fails both.
	for _, err := range []error{err, putErr, readErr} {
		if err != nil {
			return backup.Contents{}, err
		}
	}

	m.Size = size.n
	m.SHA256 = hex.EncodeToString(hash.Sum(nil))

	return contents, nil
}

// readAlong starts etcd's reader over what is written to w; read waits for what it found.
// Without a reader, w discards and read finds nothing.
func readAlong(d *Deps) (w *io.PipeWriter, read func() (backup.Contents, error)) {
	plainR, plainW := io.Pipe()

	if d.ReadSnapshot == nil {
		go io.Copy(io.Discard, plainR) //nolint:errcheck // nothing reads the snapshot

		return plainW, func() (backup.Contents, error) { return backup.Contents{}, nil }
	}

	type result struct {
		c   backup.Contents
		err error
	}

	done := make(chan result, 1)

	go func() {
		c, err := d.ReadSnapshot(plainR)
		plainR.CloseWithError(orEOF(err))
		done <- result{c, err}
	}()

	return plainW, func() (backup.Contents, error) {
		r := <-done

		return r.c, r.err
	}
}

func orEOF(err error) error {
	if err == nil {
		return io.EOF
	}

	return err
}

// counter counts the bytes written to it.
type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) {
	c.n += int64(len(p))

	return len(p), nil
}
