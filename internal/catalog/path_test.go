package catalog_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/talops/talops/internal/catalog"
)

func TestUpgradePath(t *testing.T) {
	type hops = []catalog.Hop

	tests := []struct {
		name     string
		from, to catalog.Versions
		want     hops
	}{
		{
			name: "nothing moves: no hops",
			from: catalog.Versions{Talos: "v1.14.7", Kubernetes: "v1.37.1"},
			to:   catalog.Versions{Talos: "v1.14.7", Kubernetes: "v1.37.1"},
		},
		{
			name: "a patch is one hop",
			from: catalog.Versions{Talos: "v1.14.1", Kubernetes: "v1.37.1"},
			to:   catalog.Versions{Talos: "v1.14.7", Kubernetes: "v1.37.1"},
			want: hops{{Talos: "v1.14.7"}},
		},
		{
			name: "two minors behind: Talos through the newest patch in between, then Kubernetes one minor at a time",
			from: catalog.Versions{Talos: "v1.12.7", Kubernetes: "v1.35.0"},
			to:   catalog.Versions{Talos: "v1.14.7", Kubernetes: "v1.37.1"},
			want: hops{{Talos: "v1.13.13"}, {Talos: "v1.14.7"}, {Kubernetes: "v1.36.0"}, {Kubernetes: "v1.37.1"}},
		},
		{
			name: "the next minor and one Kubernetes minor: Talos first",
			from: catalog.Versions{Talos: "v1.13.13", Kubernetes: "v1.36.0"},
			to:   catalog.Versions{Talos: "v1.14.7", Kubernetes: "v1.37.1"},
			want: hops{{Talos: "v1.14.7"}, {Kubernetes: "v1.37.1"}},
		},
		{
			name: "Kubernetes moves first where the next Talos would not run it",
			from: catalog.Versions{Talos: "v1.12.7", Kubernetes: "v1.30.4"},
			to:   catalog.Versions{Talos: "v1.14.7", Kubernetes: "v1.33.0"},
			want: hops{{Kubernetes: "v1.31.0"}, {Talos: "v1.13.13"}, {Kubernetes: "v1.32.0"}, {Talos: "v1.14.7"}, {Kubernetes: "v1.33.0"}},
		},
		{
			name: "Kubernetes alone, two minors",
			from: catalog.Versions{Talos: "v1.14.7", Kubernetes: "v1.35.2"},
			to:   catalog.Versions{Talos: "v1.14.7", Kubernetes: "v1.37.1"},
			want: hops{{Kubernetes: "v1.36.0"}, {Kubernetes: "v1.37.1"}},
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := catalog.UpgradePath(catalog.Embedded(), catalog.EmbeddedFacts(), tt.from, tt.to)
			if err != nil {
				t.Fatalf("UpgradePath: %v", err)
			}

			if !slices.Equal(got, tt.want) {
				t.Errorf("hops = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUpgradePath_HasNoWayBack(t *testing.T) {
	tests := []struct {
		name     string
		from, to catalog.Versions
	}{
		{"Talos down a minor", catalog.Versions{Talos: "v1.14.7", Kubernetes: "v1.36.0"}, catalog.Versions{Talos: "v1.13.13", Kubernetes: "v1.36.0"}},
		{"Kubernetes down a minor", catalog.Versions{Talos: "v1.14.7", Kubernetes: "v1.37.1"}, catalog.Versions{Talos: "v1.14.7", Kubernetes: "v1.36.0"}},
		{"Kubernetes the target Talos does not run", catalog.Versions{Talos: "v1.14.7", Kubernetes: "v1.37.1"}, catalog.Versions{Talos: "v1.14.7", Kubernetes: "v1.38.0"}},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hops, err := catalog.UpgradePath(catalog.Embedded(), catalog.EmbeddedFacts(), tt.from, tt.to)

			var np *catalog.NoPathError
			if !errors.As(err, &np) {
				t.Fatalf("UpgradePath = %v, %v; want a *NoPathError", hops, err)
			}
		})
	}
}
