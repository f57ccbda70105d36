package cluster_test

import (
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/cluster"
)

func TestLoad_BackupSectionNamesTheDestinationAndRetention(t *testing.T) {
	c, err := cluster.Load("lab", files(minimal+"backup:\n  to: s3://talops-backups/lab\n  s3Endpoint: https://s3.lab:9000\n  s3Region: eu-west-1\n  keep: 14\n  keepWithin: 30d\n"))
	if err != nil {
		t.Fatal(err)
	}

	b := c.Spec.Backup
	if b.To != "s3://talops-backups/lab" || b.S3Endpoint != "https://s3.lab:9000" || b.S3Region != "eu-west-1" {
		t.Errorf("backup section read as %+v", b)
	}

	if got, want := b.Retention(), (backup.Retention{Keep: 14, KeepWithin: 30 * 24 * time.Hour}); got != want {
		t.Errorf("Retention = %+v, want %+v", got, want)
	}

	var none *cluster.Backup
	if none.Retention().Any() {
		t.Error("no section deletes backups")
	}
}

func TestLoad_BackupSectionProblemsArePlacedAtTheirLine(t *testing.T) {
	for _, tc := range []struct {
		name, section, want string
	}{
		{"no destination", "backup:\n  keep: 3\n", "lab/talops.yaml:19: backup.to: is required: s3://bucket/prefix or an absolute directory"},
		{"a relative directory", "backup:\n  to: backups\n", `lab/talops.yaml:20: backup.to: "backups" is a relative directory: name an absolute one, or s3://bucket/prefix`},
		{"another scheme", "backup:\n  to: gs://b/p\n", `lab/talops.yaml:20: backup.to: "gs://b/p": s3://bucket/prefix or an absolute directory`},
		{"no bucket", "backup:\n  to: s3:///p\n", "lab/talops.yaml:20: backup.to: backup destination s3:///p: no bucket: name it as s3://bucket/prefix"},
		{"plain http to another host", "backup:\n  to: s3://b/p\n  s3Endpoint: http://s3.lab:9000\n", `lab/talops.yaml:21: backup.s3Endpoint: must be https://host[:port] (http:// only to a loopback address), got "http://s3.lab:9000"`},
		{"an endpoint with a path", "backup:\n  to: s3://b/p\n  s3Endpoint: https://s3.lab/b\n", `lab/talops.yaml:21: backup.s3Endpoint: must be https://host[:port] (http:// only to a loopback address), got "https://s3.lab/b"`},
		{"an endpoint for a directory", "backup:\n  to: /var/backups\n  s3Endpoint: https://s3.lab\n", "lab/talops.yaml:21: backup.s3Endpoint: is for an s3:// destination, and backup.to is a directory"},
		{"a negative keep", "backup:\n  to: s3://b/p\n  keep: -1\n", "lab/talops.yaml:21: backup.keep: -1: keep at least 1 backup, or leave keep out to keep every one"},
		{"an age without a unit", "backup:\n  to: s3://b/p\n  keepWithin: 30\n", `lab/talops.yaml:21: backup.keepWithin: "30" is not an age: use days (30d), weeks (4w) or hours (12h)`},
		{"a credential in the file", "backup:\n  to: s3://b/p\n  secretAccessKey: x\n", "lab/talops.yaml:21: backup.secretAccessKey: unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cluster.Load("lab", files(minimal+tc.section))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%v\ndoes not contain\n%s", err, tc.want)
			}
		})
	}
}
