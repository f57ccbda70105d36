package plan

import (
	"cmp"
	"strings"

	"github.com/talops/talops/internal/cluster"
)

// MaintenanceChange is a change of talops.yaml's maintenance: section, each side as
// MaintenanceOf describes it ("": no section, apply may run at any time).
type MaintenanceChange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// MaintenanceOf describes the cluster's maintenance windows as written, in their time zone:
// "mon-fri 22:00 for 4h, sat 02:00 for 8h (Europe/Berlin)"; "" without a maintenance:
// section.
func MaintenanceOf(c *cluster.Cluster) string {
	m := c.Spec.Maintenance
	if m == nil {
		return ""
	}

	windows := make([]string, 0, len(m.Windows))

	for _, w := range m.Windows {
		days := "every day"
		if len(w.Days) > 0 {
			days = strings.Join(w.Days, ",")
		}

		windows = append(windows, days+" "+w.Start+" for "+w.Duration)
	}

	if len(windows) == 0 {
		windows = append(windows, "no window")
	}

	return strings.Join(windows, ", ") + " (" + cmp.Or(m.TimeZone, "UTC") + ")"
}

// maintenanceChange is the change of the windows from current to desired (nil when they
// are the same, or current's are unknown).
func maintenanceChange(from, to string, known bool) *MaintenanceChange {
	if !known || from == to {
		return nil
	}

	return &MaintenanceChange{From: from, To: to}
}
