package rules

import (
	"fmt"

	"github.com/siderolabs/talos/pkg/machinery/config"

	"github.com/talops/talops/internal/finding"
)

// contractMove warns when a bump also moves the config contract (configVersion follows
// talosVersion): every config is then generated in the new release's format (new
// documents, moved fields), which a running cluster never does on its own, and user
// patches written for the old format may conflict with it.
func contractMove(base, head *Input) []finding.Finding {
	from, errFrom := config.ParseContractFromVersion(base.Cluster.ConfigVersion())
	to, errTo := config.ParseContractFromVersion(head.Cluster.ConfigVersion())

	if errFrom != nil || errTo != nil || !to.Greater(from) || head.Cluster.Spec.ConfigVersion != "" {
		return nil
	}

	file, line := talosLine(head)

	return []finding.Finding{{
		Severity: finding.Warning, Code: CodeContractChange, File: file, Line: line, Path: "talosVersion",
		Message: fmt.Sprintf("Talos %s → %s also generates every config for the %s format, which the running cluster never adopts by itself (configs change shape and old-style patches may conflict): add configVersion: %s to keep the cluster's format, or review the plan's config changes",
			base.Cluster.Spec.TalosVersion, head.Cluster.Spec.TalosVersion, to.String(), from.String()),
	}}
}
