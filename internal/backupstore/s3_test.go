package backupstore_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/talops/talops/internal/backupstore"
)

func TestOpenWith_RefusesWhatWouldSendBackupsOrKeysAstray(t *testing.T) {
	t.Parallel()

	keys := map[string]string{"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMIsecret"}

	tests := []struct {
		name, dest, endpoint string
		env                  map[string]string
		wantErr              string
	}{
		{"plain http to another host", "s3://b/p", "http://s3.lab:9000", keys, "backup destination s3://b/p: S3 endpoint http://s3.lab:9000: http:// only to a loopback address; use https://"},
		{"no endpoint", "s3://b", "", keys, "backup destination s3://b: no S3 endpoint: set backup.s3Endpoint in talops.yaml or pass --s3-endpoint https://host[:port]"},
		{"an endpoint with a path", "s3://b", "https://s3.lab/bucket", keys, `backup destination s3://b: S3 endpoint "https://s3.lab/bucket": not https://host[:port]`},
		{"an endpoint with a user", "s3://b", "https://me:pw@s3.lab", keys, `backup destination s3://b: S3 endpoint "https://me:pw@s3.lab": not https://host[:port]`},
		{"no bucket", "s3:///p", "https://s3.lab", keys, "backup destination s3:///p: no bucket: name it as s3://bucket/prefix"},
		{"a prefix climbing out", "s3://b/a/../c", "https://s3.lab", keys, "backup destination s3://b/a/../c: the bucket and prefix are plain path segments"},
		{"no credentials", "s3://b/p", "https://s3.lab", nil, "backup destination s3://b/p: no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"},
		{"half the credentials", "s3://b/p", "https://s3.lab", map[string]string{"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE"}, "backup destination s3://b/p: no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"},
		{"another scheme", "gs://b/p", "https://s3.lab", keys, "backup destination gs://b/p: a directory or s3://bucket/prefix"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			_, err := backupstore.OpenWith(tt.dest, backupstore.Options{Endpoint: tt.endpoint, Getenv: func(k string) string { return tt.env[k] }})
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("OpenWith = %v\nwant %s", err, tt.wantErr)
			}
		})
	}
}

func TestOpenWith_NamesTheBucketAndPrefix(t *testing.T) {
	t.Parallel()

	for dest, want := range map[string]string{"s3://b": "s3://b", "s3://b/": "s3://b", "s3://b/x/y/": "s3://b/x/y", "s3://b/x": "s3://b/x"} {
		s, err := backupstore.OpenWith(dest, backupstore.Options{Endpoint: "http://127.0.0.1:1", Getenv: func(string) string { return "k" }})
		if err != nil || s.String() != want {
			t.Errorf("OpenWith(%s) = %v, %v; want %s", dest, s, err, want)
		}
	}

	if s, err := backupstore.Open("backups"); err != nil || s != backupstore.Dir("backups") {
		t.Errorf("Open(backups) = %v, %v: a plain name is a directory", s, err)
	}
}

func TestS3_AnEndpointThatDoesNotAnswerIsSaidInOneLine(t *testing.T) {
	t.Parallel()

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}

	addr := l.Addr().String()
	l.Close() //nolint:errcheck // nothing listens there now

	s, err := backupstore.OpenWith("s3://backups/homelab", backupstore.Options{Endpoint: "http://" + addr, Getenv: func(k string) string {
		return map[string]string{"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMIsecret"}[k]
	}})
	if err != nil {
		t.Fatal(err)
	}

	_, err = s.List(context.Background())

	want := "S3 endpoint http://" + addr + " does not answer: "
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "wJalrXUtnFEMIsecret") {
		t.Errorf("List = %v\nwant %s…", err, want)
	}
}
