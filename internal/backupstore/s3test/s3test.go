// Package s3test runs a real S3-compatible server for tests: versitygw, the binary
// $VERSITYGW names, as a separate process on loopback over its posix backend in a
// temporary directory. .ci/run builds it; a test that needs it fails without it.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Server is a running versitygw: its endpoint, its root user's keys and a bucket made for
// the test.
type Server struct {
	Endpoint  string
	AccessKey string
	SecretKey string
	Bucket    string
	// Root is the posix directory the buckets are directories of.
	Root string
}

// Env is the environment a store reads the server's credentials from.
func (s *Server) Env() map[string]string {
	return map[string]string{"AWS_ACCESS_KEY_ID": s.AccessKey, "AWS_SECRET_ACCESS_KEY": s.SecretKey}
}

// Start runs versitygw until the test ends and makes an empty bucket in it. Without
// $VERSITYGW the test fails: a test that needs a real server is never skipped.
func Start(t testing.TB) *Server {
	t.Helper()

	bin := os.Getenv("VERSITYGW")
	if bin == "" {
		t.Fatal("$VERSITYGW names no versitygw binary: build it as .ci/run does (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0) and set VERSITYGW")
	}

	root := t.TempDir()
	s := &Server{AccessKey: "talops" + token(4), SecretKey: token(20), Bucket: "backups", Root: root}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}

	addr := l.Addr().String()
	l.Close() //nolint:errcheck // the port is handed to the server

	s.Endpoint = "http://" + addr

	cmd := exec.Command(bin, "--port", addr, "--quiet", "posix", root)
	// The keys go through the environment, not the command line other processes see.
	cmd.Env = []string{"ROOT_ACCESS_KEY_ID=" + s.AccessKey, "ROOT_SECRET_ACCESS_KEY=" + s.SecretKey, "PATH=" + os.Getenv("PATH")}

	logPath := filepath.Join(t.TempDir(), "versitygw.log")

	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}

	cmd.Stdout, cmd.Stderr = logFile, logFile

	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}

	exited := make(chan error, 1)

	go func() { exited <- cmd.Wait() }()

	t.Cleanup(func() {
		cmd.Process.Kill() //nolint:errcheck // it may have exited
		<-exited           //nolint:errcheck // killed: its exit status says so
		logFile.Close()    //nolint:errcheck // a log
	})

	waitAnswers(t, s.Endpoint, exited, logPath)

	client, err := s.Client()
	if err != nil {
		t.Fatal(err)
	}

	if err := client.MakeBucket(context.Background(), s.Bucket, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("make bucket %s: %v", s.Bucket, err)
	}

	return s
}

// Client is a client of the server with its root user's keys, for a test to look behind
// the store.
func (s *Server) Client() (*minio.Client, error) {
	return minio.New(strings.TrimPrefix(s.Endpoint, "http://"), &minio.Options{
		Creds:        credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""),
		BucketLookup: minio.BucketLookupPath,
	})
}

// waitAnswers waits until the endpoint answers HTTP, at most 30 seconds.
func waitAnswers(t testing.TB, endpoint string, exited <-chan error, logPath string) {
	t.Helper()

	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)

	for {
		resp, err := client.Get(endpoint + "/")
		if err == nil {
			resp.Body.Close() //nolint:errcheck // any answer will do

			return
		}

		select {
		case err := <-exited:
			log, _ := os.ReadFile(logPath)
			t.Fatalf("versitygw exited: %v\n%s", err, log)
		case <-time.After(50 * time.Millisecond):
		}

		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not answer at %s in 30s: %v", endpoint, err)
		}
	}
}

func token(n int) string {
	b := make([]byte, n)
	rand.Read(b)

	return hex.EncodeToString(b)
}
