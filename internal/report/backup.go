package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/talops/talops/internal/backup"
)

// BackupView is what backup, backup list and backup verify print: a backup written, the
// backups of a store, a backup that passed its drill.
type BackupView struct {
	// Written is the manifest of the backup just written, Verified that of the one that
	// passed (both: the new backup passed the drill the retention asks for); Contents is
	// what its snapshot holds.
	Written, Verified *backup.Manifest
	// Deleted are the backups the retention deleted after the new one was verified.
	Deleted  []string
	Contents backup.Contents
	Store    string
	// PassedOver are the control planes not asked for the snapshot, and why.
	PassedOver []string
	// Listed are the backups of a store.
	Listed []BackupEntry
	List   bool
}

// BackupEntry is one backup of a listing: its manifest, or why it cannot be read.
type BackupEntry struct {
	Name     string
	Manifest *backup.Manifest
	Err      string
}

// Backup writes the view as text.
func Backup(w io.Writer, v BackupView) error {
	var b strings.Builder

	switch {
	case v.Written != nil:
		m := v.Written
		for _, p := range v.PassedOver {
			fmt.Fprintf(&b, "passed over %s\n", p)
		}

		fmt.Fprintf(&b, "Backup %s written to %s: etcd of %s at revision %d, %s (SHA-256 %s)\n", m.Name, v.Store, m.Node, m.Revision, bytesOf(m.Size), m.SHA256)
		contents(&b, v.Contents)

		if v.Verified != nil {
			retention(&b, v)
		}
	case v.Verified != nil:
		m := v.Verified
		fmt.Fprintf(&b, "Backup %s of %s (%s) verified: %s, SHA-256 as the manifest says, etcd reads it", m.Name, m.Cluster, m.Time.UTC().Format("2006-01-02 15:04:05 UTC"), bytesOf(m.Size))
		if v.Contents.EtcdHash {
			b.WriteString(" and etcd's own hash matches")
		}

		b.WriteString("\n")
		contents(&b, v.Contents)
	case v.List:
		if len(v.Listed) == 0 {
			fmt.Fprintf(&b, "No backup in %s\n", v.Store)

			break
		}

		fmt.Fprintf(&b, "Backups in %s, oldest first:\n", v.Store)

		for _, e := range v.Listed {
			if e.Manifest == nil {
				fmt.Fprintf(&b, "  %s  unreadable: %s\n", e.Name, e.Err)

				continue
			}

			m := e.Manifest
			fmt.Fprintf(&b, "  %s  %s  revision %d  %s  Talos %s  Kubernetes %s", m.Name, m.Time.UTC().Format("2006-01-02 15:04:05 UTC"), m.Revision, bytesOf(m.Size), orUnknown(m.TalosVersion), orUnknown(m.KubernetesVersion))

			if m.Commit != "" {
				fmt.Fprintf(&b, "  commit %.12s", m.Commit)
			}

			b.WriteString("\n")
		}
	}

	_, err := io.WriteString(w, b.String())

	return err
}

// retention says that the new backup passed its drill and which backups went.
func retention(b *strings.Builder, v BackupView) {
	fmt.Fprintf(b, "Verified %s: decrypted, size and SHA-256 as the manifest says, etcd reads it\n", v.Verified.Name)

	if len(v.Deleted) == 0 {
		b.WriteString("Retention: no backup to delete\n")

		return
	}

	fmt.Fprintf(b, "Retention: deleted %d older backup(s) of %s:\n", len(v.Deleted), v.Verified.Cluster)

	for _, name := range v.Deleted {
		fmt.Fprintf(b, "  %s\n", name)
	}
}

// contents says what a snapshot holds: counts, never a value.
func contents(b *strings.Builder, c backup.Contents) {
	fmt.Fprintf(b, "revision %d, %d keys\n", c.Revision, c.Keys)

	for _, r := range c.ResourceNames() {
		fmt.Fprintf(b, "  %-40s %d\n", r, c.Resources[r])
	}
}

func bytesOf(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}

	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}

	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func orUnknown(s string) string {
	if s == "" {
		return "?"
	}

	return s
}
