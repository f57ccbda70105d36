package cluster_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/talops/talops/internal/cluster"
)

// Every file apply reads is an input, once, by path, with its bytes as read; a file named
// twice in two spellings is read and bound once, and patches and node configs are marked
// as machine config.
func TestInputs_AreEveryFileReadOnceByPath(t *testing.T) {
	f := files(strings.Replace(minimal, "patches: [nodes/w1.yaml]", "patches: [./patches/common.yaml, nodes/w1.yaml]", 1))
	f["patches/common.yaml"] = []byte("machine:   {}\n\n")
	f["./patches/common.yaml"] = f["patches/common.yaml"] // one file, as a directory reads it

	c, err := cluster.Load("lab", f)
	if err != nil {
		t.Fatal(err)
	}

	want := []cluster.Input{
		{Path: "nodes/w1.yaml", Data: f["nodes/w1.yaml"], Config: true},
		{Path: "patches/common.yaml", Data: f["patches/common.yaml"], Config: true},
		{Path: "schematics/base.yaml", Data: f["schematics/base.yaml"]},
		{Path: "talops.yaml", Data: f["talops.yaml"]},
	}

	if got := c.Inputs(); !reflect.DeepEqual(got, want) {
		t.Errorf("inputs:\n%+v\nwant:\n%+v", got, want)
	}
}
