package talhelper_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/talops/talops/internal/importer/talhelper"
)

// TestImport_EnvsubstFormsAreTalhelpers: the talconfig's ${VAR:-default} and the other
// forms of talhelper's envsubst library are substituted as it does them.
func TestImport_EnvsubstFormsAreTalhelpers(t *testing.T) {
	talconfig := head + "nodes:\n  - hostname: n1\n    ipAddress: ${N1_IP:-10.0.0.11}\n    nodeLabels:\n      rack: ${RACK:-r0}\n      zone: ${ZONE-z0}\n      set: ${RACK:+yes}\n"

	res := importText(t, talconfig, nil, map[string]string{"ZONE": "z9"})

	if talops := written(t, res, "talops.yaml"); !strings.Contains(talops, "address: 10.0.0.11") {
		t.Fatalf("the default address is not used:\n%s", talops)
	}

	ops := written(t, res, "nodes/n1-talhelper.yaml")
	for _, want := range []string{"rack: r0", "zone: z9", "set: \"\""} {
		if !strings.Contains(ops, want) {
			t.Fatalf("want %q in\n%s", want, ops)
		}
	}

	if got := findingPlaces(res.Findings, talhelper.CodeUnset, ""); len(got) > 0 {
		t.Fatalf("a form with a default is reported unset: %v", got)
	}

	if got := findingPlaces(res.Findings, talhelper.CodeSubstituted, ""); !slices.Equal(got, []string{"10 ${ZONE}"}) {
		t.Fatalf("want ZONE reported as substituted at line 10, got %v", got)
	}
}

// TestImport_FileContentsAreSubstitutedAsTalhelperDoesThem: an @file's contents without
// skipEnvsubst are read as YAML (losing their comments) and substituted, not refused.
func TestImport_FileContentsAreSubstitutedAsTalhelperDoesThem(t *testing.T) {
	talconfig := head + "nodes:\n  - hostname: n1\n    ipAddress: 10.0.0.11\n    machineFiles:\n      - path: /var/etc/app.yaml\n        op: create\n        permissions: 0o644\n        content: \"@./files/app.yaml\"\n"
	files := map[string]string{"files/app.yaml": "# a comment talhelper drops\nname: ${APP_NAME}\nlevel: ${LEVEL:-info}\n"}

	res := importText(t, talconfig, files, map[string]string{"APP_NAME": "demo"})

	ops := written(t, res, "nodes/n1-talhelper.yaml")
	if !strings.Contains(ops, "name: demo") || !strings.Contains(ops, "level: info") || strings.Contains(ops, "comment") {
		t.Fatalf("the file is not substituted as talhelper does:\n%s", ops)
	}

	if got := findingPlaces(res.Findings, talhelper.CodeSubstituted, ""); !slices.Equal(got, []string{"- ${APP_NAME}"}) {
		t.Fatalf("want APP_NAME reported, got %v", got)
	}
}

// TestImport_AnEnvsubstItCannotReadIsRefusedAtItsLine: talhelper stops on a ${ its line
// never closes.
func TestImport_AnEnvsubstItCannotReadIsRefusedAtItsLine(t *testing.T) {
	_, err := talhelper.Import(talhelper.Input{File: "talconfig.yaml", Data: []byte(head + "nodes:\n  - hostname: n1\n    ipAddress: ${IP\n")})
	if err == nil || !strings.HasPrefix(err.Error(), "talconfig.yaml:7: ") {
		t.Fatalf("want an error at talconfig.yaml:7, got %v", err)
	}
}
