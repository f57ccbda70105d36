package talostest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cosi-project/runtime/pkg/safe"
	"github.com/siderolabs/talos/pkg/machinery/api/machine"
	"github.com/siderolabs/talos/pkg/machinery/client"
	"github.com/siderolabs/talos/pkg/machinery/resources/config"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/talops/talops/internal/talos/talostest"
)

const (
	live     = "Applied configuration without a reboot"
	rebooted = "Applied configuration with a reboot"
	notLive  = "this config change can't be applied in immediate mode\ndiff:\n"
)

//nolint:staticcheck // the REBOOT mode is part of what is tested
const rebootMode = machine.ApplyConfigurationRequest_REBOOT

func running(t *testing.T, c *client.Client) string {
	t.Helper()

	mc, err := safe.StateGetByID[*config.MachineConfig](context.Background(), c.COSI, config.ActiveID)
	if err != nil {
		t.Fatal(err)
	}

	b, err := mc.Provider().Bytes()
	if err != nil {
		t.Fatal(err)
	}

	return string(b)
}

func TestApplyConfiguration_ModesAnswerAsTheRelease(t *testing.T) {
	tests := []struct {
		name    string
		version string
		mode    machine.ApplyConfigurationRequest_Mode
		dryRun  bool
		config  []byte
		// wantMode and wantDetails (a prefix) are the answer; wantErr (a prefix) and
		// wantCode a refusal.
		wantMode    machine.ApplyConfigurationRequest_Mode
		wantDetails string
		wantCode    codes.Code
		wantErr     string
		// wantBoots is how many times the node booted again; wantRuns whether the new
		// config (its HTTP_PROXY or sysctl) runs afterwards.
		wantBoots int
		wantRuns  bool
	}{
		{
			name: "1.13 AUTO applies a live change without a reboot", version: "v1.13.9",
			mode: machine.ApplyConfigurationRequest_AUTO, config: sysctlChange,
			wantMode: machine.ApplyConfigurationRequest_NO_REBOOT, wantDetails: live, wantRuns: true,
		},
		{
			name: "1.13 AUTO answers REBOOT and reboots for a change that needs it", version: "v1.13.9",
			mode: machine.ApplyConfigurationRequest_AUTO, config: envChange,
			wantMode: rebootMode, wantDetails: rebooted + ": " + notLive, wantBoots: 1, wantRuns: true,
		},
		{
			name: "1.12 AUTO reboots as 1.13 does", version: "v1.12.6",
			mode: machine.ApplyConfigurationRequest_AUTO, config: envChange,
			wantMode: rebootMode, wantDetails: rebooted + ": " + notLive, wantBoots: 1, wantRuns: true,
		},
		{
			name: "1.13 NO_REBOOT refuses a change that needs a reboot", version: "v1.13.9",
			mode: machine.ApplyConfigurationRequest_NO_REBOOT, config: envChange,
			wantCode: codes.InvalidArgument, wantErr: notLive,
		},
		{
			name: "1.13 TRY refuses a change that needs a reboot", version: "v1.13.9",
			mode: machine.ApplyConfigurationRequest_TRY, config: envChange,
			wantCode: codes.InvalidArgument, wantErr: notLive,
		},
		{
			name: "1.13 NO_REBOOT applies a live change", version: "v1.13.9",
			mode: machine.ApplyConfigurationRequest_NO_REBOOT, config: sysctlChange,
			wantMode: machine.ApplyConfigurationRequest_NO_REBOOT, wantDetails: live, wantRuns: true,
		},
		{
			name: "1.13 REBOOT mode reboots", version: "v1.13.9",
			mode: rebootMode, config: sysctlChange,
			wantMode: rebootMode, wantDetails: rebooted, wantBoots: 1, wantRuns: true,
		},
		{
			name: "1.14 AUTO never reboots", version: "v1.14.1",
			mode: machine.ApplyConfigurationRequest_AUTO, config: envChange,
			wantMode: machine.ApplyConfigurationRequest_NO_REBOOT, wantDetails: live, wantRuns: true,
		},
		{
			name: "1.14 NO_REBOOT takes a change that needs a reboot", version: "v1.14.1",
			mode: machine.ApplyConfigurationRequest_NO_REBOOT, config: envChange,
			wantMode: machine.ApplyConfigurationRequest_NO_REBOOT, wantDetails: live, wantRuns: true,
		},
		{
			name: "1.14 refuses the REBOOT mode", version: "v1.14.1",
			mode: rebootMode, config: sysctlChange,
			wantCode: codes.Unimplemented, wantErr: "the REBOOT mode is not supported, please use AUTO or NO_REBOOT modes instead",
		},
		{
			name: "STAGED keeps the running config", version: "v1.14.1",
			mode: machine.ApplyConfigurationRequest_STAGED, config: envChange,
			wantMode: machine.ApplyConfigurationRequest_STAGED, wantDetails: "Staged configuration to be applied after the next reboot",
		},
		{
			name: "TRY says when it reverts", version: "v1.14.1",
			mode: machine.ApplyConfigurationRequest_TRY, config: envChange,
			wantMode:    machine.ApplyConfigurationRequest_TRY,
			wantDetails: live + "\nThe config is applied in 'try' mode and will be automatically reverted back in 1m0s", wantRuns: true,
		},
		{
			name: "1.14 dry run shows the diff and changes nothing", version: "v1.14.1",
			mode: machine.ApplyConfigurationRequest_AUTO, dryRun: true, config: envChange,
			wantMode: machine.ApplyConfigurationRequest_NO_REBOOT, wantDetails: "Dry run summary:\n" + live + " (skipped in dry-run).\nConfig diff:\n\n",
		},
		{
			name: "1.13 dry run says it would reboot and does not", version: "v1.13.9",
			mode: machine.ApplyConfigurationRequest_AUTO, dryRun: true, config: envChange,
			wantMode: rebootMode, wantDetails: "Dry run summary:\n" + rebooted + " (skipped in dry-run).\nConfig diff:\n\n",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			ctx := context.Background()
			s, c := started(t, talostest.Node{Version: tt.version})

			resp, err := c.ApplyConfiguration(ctx, &machine.ApplyConfigurationRequest{
				Data: tt.config, Mode: tt.mode, DryRun: tt.dryRun, TryModeTimeout: durationpb.New(time.Minute),
			})

			if tt.wantErr != "" {
				if status.Code(err) != tt.wantCode || !strings.HasPrefix(status.Convert(err).Message(), tt.wantErr) {
					t.Fatalf("err %v, want %s %q…", err, tt.wantCode, tt.wantErr)
				}

				if len(s.Applied()) != 0 {
					t.Errorf("a refused config was taken: %d", len(s.Applied()))
				}

				return
			}

			if err != nil {
				t.Fatal(err)
			}

			msg := resp.GetMessages()[0]
			if msg.GetMode() != tt.wantMode || !strings.HasPrefix(msg.GetModeDetails(), tt.wantDetails) {
				t.Errorf("answer %s %q, want %s %q…", msg.GetMode(), msg.GetModeDetails(), tt.wantMode, tt.wantDetails)
			}

			s.WaitRunning(t)

			if s.Boots() != tt.wantBoots {
				t.Errorf("boots %d, want %d", s.Boots(), tt.wantBoots)
			}

			runs := strings.Contains(running(t, c), "HTTP_PROXY") || strings.Contains(running(t, c), "ip_forward")
			if runs != tt.wantRuns {
				t.Errorf("the new config runs: %t, want %t", runs, tt.wantRuns)
			}
		})
	}
}

func TestApplyConfiguration_DryRunOfTheRunningConfigSaysNoChanges(t *testing.T) {
	_, c := started(t, talostest.Node{Version: "v1.14.1"})

	resp, err := c.ApplyConfiguration(context.Background(), &machine.ApplyConfigurationRequest{Data: []byte(baseConfig), Mode: machine.ApplyConfigurationRequest_AUTO, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}

	if got, want := resp.GetMessages()[0].GetModeDetails(), "Dry run summary:\n"+live+" (skipped in dry-run).\nConfig diff:\n\nNo changes."; got != want {
		t.Errorf("details %q, want %q", got, want)
	}
}

func TestApplyConfiguration_A113NodeRebootingAfterAnApplyRefusesTheNext(t *testing.T) {
	ctx := context.Background()
	s, c := started(t, talostest.Node{Version: "v1.13.9", Reboot: talostest.Reboot{Answering: 300 * time.Millisecond}})

	if _, err := c.ApplyConfiguration(ctx, &machine.ApplyConfigurationRequest{Data: envChange, Mode: machine.ApplyConfigurationRequest_AUTO}); err != nil {
		t.Fatal(err)
	}

	_, err := c.ApplyConfiguration(ctx, &machine.ApplyConfigurationRequest{Data: sysctlChange, Mode: machine.ApplyConfigurationRequest_AUTO})
	if status.Code(err) != codes.FailedPrecondition || status.Convert(err).Message() != "configuration was already applied and node is rebooting, cannot apply more configuration changes until next reboot" {
		t.Errorf("second apply: %v", err)
	}

	s.WaitRunning(t)

	// Live against the config it rebooted with.
	both := withMachine("  env:\n    HTTP_PROXY: http://proxy:3128\n  sysctls:\n    net.ipv4.ip_forward: \"1\"\n")
	if _, err := c.ApplyConfiguration(ctx, &machine.ApplyConfigurationRequest{Data: both, Mode: machine.ApplyConfigurationRequest_NO_REBOOT}); err != nil {
		t.Errorf("after the reboot: %v", err)
	}
}

func TestApplyConfiguration_TryRollsBackAfterItsTimeout(t *testing.T) {
	ctx := context.Background()
	_, c := started(t, talostest.Node{Version: "v1.14.1"})

	if _, err := c.ApplyConfiguration(ctx, &machine.ApplyConfigurationRequest{Data: sysctlChange, Mode: machine.ApplyConfigurationRequest_TRY, TryModeTimeout: durationpb.New(50 * time.Millisecond)}); err != nil {
		t.Fatal(err)
	}

	if !strings.Contains(running(t, c), "ip_forward") {
		t.Fatal("the tried config does not run")
	}

	deadline := time.Now().Add(5 * time.Second)
	for strings.Contains(running(t, c), "ip_forward") {
		if time.Now().After(deadline) {
			t.Fatal("the tried config was not rolled back")
		}

		time.Sleep(10 * time.Millisecond)
	}
}

func TestApplyConfiguration_ValidatesAsMachined(t *testing.T) {
	hostDNS := "  features:\n    hostDNS:\n      enabled: true\n      forwardKubeDNSToHost: true\n"

	tests := []struct {
		name     string
		mode     string
		config   []byte
		wantCode codes.Code
		// want is a prefix of the refusal, or of the warnings joined by newlines.
		want string
	}{
		{
			name: "no v1alpha1 document", config: []byte("apiVersion: v1alpha1\nkind: KmsgLogConfig\nname: remote\nurl: tcp://192.0.2.1:5000\n"),
			wantCode: codes.InvalidArgument, want: "the applied machine configuration doesn't contain v1alpha1 config, did you mean to patch the machine config instead?",
		},
		{
			name: "a config that does not load", config: []byte("version: v1alpha1\nmachine: [\n"),
			wantCode: codes.InvalidArgument, want: "",
		},
		{
			name: "no CA", config: []byte(strings.Replace(baseConfig, "  ca:\n    crt: ZmFrZQ==\n", "", 1)),
			wantCode: codes.InvalidArgument, want: "1 error occurred:\n\t* v1alpha1.Config: 1 error occurred:\n\t* issuing CA or some accepted CAs are required (.machine.ca, machine.acceptedCAs)",
		},
		{
			name: "container mode needs hostDNS", mode: "container", config: sysctlChange,
			wantCode: codes.InvalidArgument, want: "1 error occurred:\n\t* hostDNS config is required in container mode",
		},
		{
			name: "container mode takes a config with hostDNS", mode: "container", config: withMachine(hostDNS),
			wantCode: codes.OK,
		},
		{
			name: "cloud mode does not need hostDNS", mode: "cloud", config: sysctlChange,
			wantCode: codes.OK,
		},
		{
			name: "a deprecated field is a warning", config: withMachine("  install:\n    extensions:\n      - image: ghcr.io/siderolabs/gvisor:20231214.0-v1.6.1\n"),
			wantCode: codes.OK, want: ".machine.install.extensions is deprecated",
		},
		{
			name: "a legacy machine type is a warning", config: []byte(strings.Replace(baseConfig, "type: worker", "type: join", 1)),
			wantCode: codes.OK, want: `use "worker" instead of "join" for machine type`,
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			for _, version := range []string{"v1.13.9", "v1.14.1"} {
				_, c := started(t, talostest.Node{Version: version, Mode: tt.mode})

				resp, err := c.ApplyConfiguration(context.Background(), &machine.ApplyConfigurationRequest{Data: tt.config, Mode: machine.ApplyConfigurationRequest_STAGED})
				if status.Code(err) != tt.wantCode {
					t.Fatalf("%s: %v, want %s", version, err, tt.wantCode)
				}

				if err != nil {
					if !strings.HasPrefix(status.Convert(err).Message(), tt.want) {
						t.Errorf("%s: %q, want %q…", version, status.Convert(err).Message(), tt.want)
					}

					continue
				}

				warnings := strings.Join(resp.GetMessages()[0].GetWarnings(), "\n")
				if !strings.HasPrefix(warnings, tt.want) || (tt.want == "") != (warnings == "") {
					t.Errorf("%s: warnings %q, want %q", version, warnings, tt.want)
				}
			}
		})
	}
}

func TestVersion_ReportsThePlatformOfItsMode(t *testing.T) {
	for mode, want := range map[string]string{"": "nocloud cloud", "cloud": "nocloud cloud", "container": "container container", "metal": "metal metal"} {
		_, c := started(t, talostest.Node{Version: "v1.14.1", Mode: mode})

		resp, err := c.Version(context.Background())
		if err != nil {
			t.Fatal(err)
		}

		p := resp.GetMessages()[0].GetPlatform()
		if got := p.GetName() + " " + p.GetMode(); got != want || resp.GetMessages()[0].GetVersion().GetTag() != "v1.14.1" {
			t.Errorf("mode %q: %q, want %q", mode, got, want)
		}
	}
}

func TestContainerMode_RefusesRebootsAndUpgrades(t *testing.T) {
	s, c := started(t, talostest.Node{Version: "v1.14.1", Mode: "container"})

	for _, call := range []string{"Reboot", "Upgrade (legacy)", "LifecycleService.Upgrade"} {
		err := calls[call](context.Background(), c)
		if status.Code(err) != codes.FailedPrecondition || status.Convert(err).Message() != "method is not supported in container mode" {
			t.Errorf("%s: %v", call, err)
		}
	}

	if s.Reboots() != 0 || len(s.Upgrades()) != 0 || s.Boots() != 0 {
		t.Errorf("reboots %d, upgrades %d, boots %d", s.Reboots(), len(s.Upgrades()), s.Boots())
	}
}
