package cluster

import (
	"net/url"
	"path/filepath"
	"strings"

	"github.com/talops/talops/internal/backup"
)

// Backup is the backup: section: where `talops backup` writes and `backup list`/`verify`
// read without --to or --from, where apply's pre-change etcd snapshot goes, and how many
// backups are kept. Credentials never come from this file: an S3 bucket's come from
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
type Backup struct {
	// To is the destination: s3://bucket/prefix, or an absolute directory.
	To string `yaml:"to"`
	// S3Endpoint is the S3 API of a bucket destination: https://host[:port] (http:// only to
	// a loopback address); S3Region its region ("": us-east-1).
	S3Endpoint string `yaml:"s3Endpoint,omitempty"`
	S3Region   string `yaml:"s3Region,omitempty"`
	// Keep is how many of the newest backups of the cluster are kept (0: no limit).
	Keep int `yaml:"keep,omitempty"`
	// KeepWithin keeps every backup younger than it (30d, 4w, 12h; "": no limit).
	KeepWithin string `yaml:"keepWithin,omitempty"`
}

// Retention is the section's retention (nil section: none). Load has checked keepWithin.
func (b *Backup) Retention() backup.Retention {
	if b == nil {
		return backup.Retention{}
	}

	r := backup.Retention{Keep: b.Keep}
	if b.KeepWithin != "" {
		r.KeepWithin, _ = backup.ParseAge(b.KeepWithin)
	}

	return r
}

// backupSection checks the backup: section, each problem on its line.
func (k *checker) backupSection() {
	b := k.c.Spec.Backup
	if b == nil {
		return
	}

	s3 := strings.HasPrefix(b.To, "s3://")

	switch {
	case b.To == "":
		k.bad("backup.to", "is required: s3://bucket/prefix or an absolute directory")
	case s3:
		if _, _, err := backup.ParseS3(b.To); err != nil {
			k.bad("backup.to", "%v", err)
		}
	case strings.Contains(b.To, "://"):
		k.bad("backup.to", "%q: s3://bucket/prefix or an absolute directory", b.To)
	case !filepath.IsAbs(b.To):
		// A relative directory would be the runner's checkout, where a backup could be
		// committed or uploaded with the workspace.
		k.bad("backup.to", "%q is a relative directory: name an absolute one, or s3://bucket/prefix", b.To)
	}

	if b.S3Endpoint != "" {
		if u, err := url.Parse(b.S3Endpoint); !secureURL(b.S3Endpoint) || err != nil || (u.Path != "" && u.Path != "/") || u.User != nil || u.RawQuery != "" {
			k.bad("backup.s3Endpoint", "must be https://host[:port] (http:// only to a loopback address), got %q", b.S3Endpoint)
		}
	}

	if !s3 && b.To != "" && (b.S3Endpoint != "" || b.S3Region != "") {
		k.bad("backup.s3Endpoint", "is for an s3:// destination, and backup.to is a directory")
	}

	if b.Keep < 0 {
		k.bad("backup.keep", "%d: keep at least 1 backup, or leave keep out to keep every one", b.Keep)
	}

	if b.KeepWithin != "" {
		if _, err := backup.ParseAge(b.KeepWithin); err != nil {
			k.bad("backup.keepWithin", "%v", err)
		}
	}
}
