package deploy

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/journalship/journalship/format/cortex"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/retention"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/api/krusty"
	ktypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/journalship/journalship/output"
)

// Kubernetes: deploy/daemonset

// k8sDecoder decodes YAML into the typed objects of k8s.io/api, strictly:
// an unknown or misspelt field (case included) or a duplicate is an error.
func k8sDecoder() runtime.Decoder {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer()
}

// decodeStrict decodes YAML into v with Kubernetes' strict JSON rules.
func decodeStrict(data []byte, v any) error {
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return err
	}
	strict, err := kjson.UnmarshalStrict(j, v)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// kustomization decodes deploy/daemonset/kustomization.yaml strictly.
func kustomization(t *testing.T) ktypes.Kustomization {
	t.Helper()
	var k ktypes.Kustomization
	require.NoError(t, decodeStrict(readFile(t, "deploy/daemonset/kustomization.yaml"), &k))
	return k
}

// cluster holds the objects kustomize renders from deploy/daemonset.
type cluster struct {
	ns  *corev1.Namespace
	sa  *corev1.ServiceAccount
	ds  *appsv1.DaemonSet
	svc *corev1.Service
	cm  *corev1.ConfigMap
}

func (c *cluster) add(t *testing.T, obj runtime.Object) {
	t.Helper()
	switch o := obj.(type) {
	case *corev1.Namespace:
		c.ns = o
	case *corev1.ServiceAccount:
		c.sa = o
	case *appsv1.DaemonSet:
		c.ds = o
	case *corev1.Service:
		c.svc = o
	case *corev1.ConfigMap:
		c.cm = o
	default:
		t.Errorf("unexpected object %T: nothing else is needed (no Role: nothing uses the API)", obj)
	}
}

// build renders deploy/daemonset as `kubectl apply -k` would and decodes
// every object strictly.
func build(t *testing.T) *cluster {
	t.Helper()
	dir, err := filepath.Abs(daemonsetDir)
	require.NoError(t, err)
	rm, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	require.NoError(t, err)
	c := &cluster{}
	dec := k8sDecoder()
	for _, r := range rm.Resources() {
		data, err := r.AsYAML()
		require.NoError(t, err)
		obj, _, err := dec.Decode(data, nil, nil)
		require.NoError(t, err, "%s", data)
		c.add(t, obj)
	}
	require.True(t, c.ns != nil && c.sa != nil && c.ds != nil && c.svc != nil && c.cm != nil, "every object rendered")
	return c
}

// manifestFiles are the YAML files of deploy/daemonset that are not the
// kustomization or a generator's input.
func manifestFiles(t *testing.T, k ktypes.Kustomization) []string {
	t.Helper()
	inputs := map[string]bool{"kustomization.yaml": true}
	for _, g := range k.ConfigMapGenerator {
		for _, f := range g.FileSources {
			inputs[f] = true
		}
	}
	entries, err := os.ReadDir(daemonsetDir)
	require.NoError(t, err)
	var files []string
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); (ext == ".yaml" || ext == ".yml") && !inputs[e.Name()] {
			files = append(files, e.Name())
		}
	}
	return files
}

// TestManifestsDecodeStrictly: every manifest is a known object whose
// every field Kubernetes knows, and kustomization.yaml lists exactly them.
func TestManifestsDecodeStrictly(t *testing.T) {
	k := kustomization(t)
	files := manifestFiles(t, k)
	assert.ElementsMatch(t, files, k.Resources, "kustomization.yaml lists exactly the manifests present")
	c := &cluster{}
	for _, f := range files {
		obj, _, err := k8sDecoder().Decode(readFile(t, "deploy/daemonset/"+f), nil, nil)
		require.NoError(t, err, f)
		c.add(t, obj)
	}
	for _, g := range k.ConfigMapGenerator {
		for _, f := range g.FileSources {
			_, err := os.Stat(filepath.Join(daemonsetDir, f))
			assert.NoError(t, err, "generator file %s", f)
		}
	}
}

// TestStrictDecodingCatchesMisspellings: the same decoders refuse a
// misspelt copy, even one differing only in case.
func TestStrictDecodingCatchesMisspellings(t *testing.T) {
	ds := string(readFile(t, "deploy/daemonset/daemonset.yaml"))
	for old, typo := range map[string]string{
		"readOnlyRootFilesystem": "readOnlyRootFileSystem",
		"mountPath: /tmp":        "mountPth: /tmp",
		"periodSeconds: 10":      "periodSeconds: 10\n            periodSeconds: 11",
	} {
		require.Contains(t, ds, old)
		_, _, err := k8sDecoder().Decode([]byte(strings.Replace(ds, old, typo, 1)), nil, nil)
		assert.Error(t, err, typo)
		assert.True(t, runtime.IsStrictDecodingError(err) || strings.Contains(fmt.Sprint(err), "duplicate"), "%v", err)
	}
	kz := strings.Replace(string(readFile(t, "deploy/daemonset/kustomization.yaml")), "configMapGenerator:", "configMapGenerators:", 1)
	var k ktypes.Kustomization
	assert.ErrorContains(t, decodeStrict([]byte(kz), &k), "configMapGenerators")
}

// TestKustomizeBuild: the rendered objects live in the namespace, the
// ConfigMap carries the generator's files, and the DaemonSet uses it and
// the image named in kustomization.yaml.
func TestKustomizeBuild(t *testing.T) {
	k := kustomization(t)
	c := build(t)
	for _, o := range []*metav1.ObjectMeta{&c.sa.ObjectMeta, &c.ds.ObjectMeta, &c.svc.ObjectMeta, &c.cm.ObjectMeta} {
		assert.Equal(t, k.Namespace, o.Namespace, o.Name)
		assert.Empty(t, validation.IsDNS1123Subdomain(o.Name), o.Name)
	}
	assert.Equal(t, k.Namespace, c.ns.Name)
	require.Len(t, k.ConfigMapGenerator, 1)
	assert.True(t, strings.HasPrefix(c.cm.Name, k.ConfigMapGenerator[0].Name+"-"), "hash suffix: %s", c.cm.Name)
	for _, f := range k.ConfigMapGenerator[0].FileSources {
		assert.Equal(t, string(readFile(t, "deploy/daemonset/"+f)), c.cm.Data[f], f)
	}
	assert.Len(t, c.cm.Data, len(k.ConfigMapGenerator[0].FileSources))
	assert.Equal(t, c.cm.Name, volume(t, c.ds, "config").ConfigMap.Name, "the DaemonSet mounts the generated ConfigMap")
	require.Len(t, k.Images, 1)
	for _, ctr := range slices.Concat(c.ds.Spec.Template.Spec.InitContainers, c.ds.Spec.Template.Spec.Containers) {
		assertPinned(t, ctr.Image)
		if ctr.Name != "state-owner" {
			assert.Equal(t, k.Images[0].NewName+":"+k.Images[0].NewTag, ctr.Image, ctr.Name)
		}
	}
}

func volume(t *testing.T, ds *appsv1.DaemonSet, name string) corev1.Volume {
	t.Helper()
	for _, v := range ds.Spec.Template.Spec.Volumes {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no volume %s", name)
	return corev1.Volume{}
}

func container(t *testing.T, ds *appsv1.DaemonSet, name string) corev1.Container {
	t.Helper()
	for _, c := range slices.Concat(ds.Spec.Template.Spec.InitContainers, ds.Spec.Template.Spec.Containers) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %s", name)
	return corev1.Container{}
}

// mountOf returns where the container mounts the volume ("" if it does not).
func mountOf(c corev1.Container, vol string) (corev1.VolumeMount, bool) {
	for _, m := range c.VolumeMounts {
		if m.Name == vol {
			return m, true
		}
	}
	return corev1.VolumeMount{}, false
}

// configKey maps a path inside the config mount to its ConfigMap key.
func configKey(t *testing.T, c *cluster, ctr corev1.Container, p string) string {
	t.Helper()
	m, ok := mountOf(ctr, "config")
	require.True(t, ok, "%s mounts the configuration", ctr.Name)
	rel, err := filepath.Rel(m.MountPath, p)
	require.NoError(t, err)
	require.False(t, strings.Contains(rel, "/") || strings.HasPrefix(rel, ".."), "%s is directly in %s", p, m.MountPath)
	_, ok = c.cm.Data[rel]
	assert.True(t, ok, "ConfigMap key %s (for %s)", rel, p)
	return rel
}

// clusterConf is the Fluent Bit configuration the cluster runs.
func clusterConf(t *testing.T) flbConf {
	t.Helper()
	return loadFLB(t, "deploy/daemonset/fluent-bit.conf")
}

// TestDaemonSetVolumes: every mount names a declared volume and every
// volume is used; the configuration files Fluent Bit reads are keys of the
// ConfigMap; the hostPaths are where the configuration keeps journals and
// state.
func TestDaemonSetVolumes(t *testing.T) {
	c := build(t)
	pod := c.ds.Spec.Template.Spec
	used := map[string]bool{}
	for _, ctr := range slices.Concat(pod.InitContainers, pod.Containers) {
		for _, m := range ctr.VolumeMounts {
			_ = volume(t, c.ds, m.Name)
			used[m.Name] = true
		}
	}
	for _, v := range pod.Volumes {
		assert.True(t, used[v.Name], "volume %s is mounted", v.Name)
	}
	conf := clusterConf(t)
	svc, ins, out := conf.only(t, "SERVICE", ""), conf.all("INPUT", "tail"), conf.only(t, "OUTPUT", "journalship")
	flb := container(t, c.ds, "fluent-bit")
	plugin, confPath := fluentBitArgs(t, wrappedFluentBit(t, flb))
	assert.Equal(t, dockerImage(t).plugin, plugin, "-e loads the .so where the image has it")
	assert.Equal(t, "fluent-bit.conf", configKey(t, c, flb, confPath))
	check := container(t, c.ds, "check-config")
	assert.Equal(t, []string{dockerImage(t).journalship}, check.Command)
	require.Len(t, check.Args, 2)
	assert.Equal(t, "check-config", check.Args[0])
	assert.Equal(t, "fluent-bit.conf", configKey(t, c, check, check.Args[1]), "the init container checks the configuration Fluent Bit runs")
	price, _ := out.shown(priceFile)
	assert.Equal(t, "prices.yaml", configKey(t, c, flb, price), "Price_File, once uncommented, finds the ConfigMap's table")

	state := volume(t, c.ds, "state").HostPath
	require.NotNil(t, state)
	// The Cortex Plane journals of every team; every format's roots,
	// tailed and swept: TestDaemonSetMountsEveryJournalRoot.
	roots, err := registry.ParseRoots(setting(out, "Format_Roots"))
	require.NoError(t, err)
	require.NotEmpty(t, roots[cortex.Name])
	for _, root := range roots[cortex.Name] {
		assert.True(t, slices.ContainsFunc(ins, func(in flbSection) bool {
			return slices.Contains(strings.Split(value(in, "Path"), ","), root+"/*/*.jsonl")
		}), "a tail input reads %s/*/*.jsonl", root)
		for _, name := range []string{"fluent-bit", "retention"} {
			m, hp, ok := nodeMount(c.ds, container(t, c.ds, name), root)
			if assert.True(t, ok, "%s sees the journals of %s where the node has them", name, root) {
				assert.Equal(t, root, hp.Path)
				assert.Equal(t, name == "fluent-bit", m.ReadOnly, "%s: only retention deletes", name)
			}
		}
		assert.Contains(t, retention.ParseRoots(flagArgs(container(t, c.ds, "retention").Args)["root"]), root)
	}
	onState := []string{value(svc, "storage.path"), setting(out, "Ledger_Path"), setting(out, "Dead_Letter_Path")}
	for _, in := range ins {
		onState = append(onState, value(in, "DB"))
	}
	for _, p := range onState {
		assert.True(t, strings.HasPrefix(p, state.Path+"/"), "%s is on the state hostPath %s", p, state.Path)
	}
	for _, name := range []string{"fluent-bit", "retention"} {
		m, ok := mountOf(container(t, c.ds, name), "state")
		assert.True(t, ok && m.MountPath == state.Path && !m.ReadOnly, "%s shares the state", name)
	}
	auth := volume(t, c.ds, "loki-auth").Secret
	require.NotNil(t, auth)
	assert.True(t, *auth.Optional, "pods start without the Secret")
	for _, k := range []string{"HTTP_Passwd_File", "Bearer_Token_File", "TLS_CA_File", "TLS_Cert_File", "TLS_Key_File"} {
		p, _ := out.shown(k)
		for _, name := range []string{"fluent-bit", "retention"} {
			m, ok := mountOf(container(t, c.ds, name), "loki-auth")
			assert.True(t, ok && path.Dir(p) == m.MountPath, "%s %s is in %s's Secret mount", k, p, name)
		}
	}
}

func value(s flbSection, k string) string { v, _ := s.get(k); return v }

// flagArgs parses a subcommand's --name=value, --name value and --bool
// arguments (args[0], the subcommand, is skipped).
func flagArgs(args []string) map[string]string {
	m := map[string]string{}
	for i := 1; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "-") {
			continue
		}
		name := strings.TrimLeft(args[i], "-")
		switch k, v, ok := strings.Cut(name, "="); {
		case ok:
			m[k] = v
		case i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			m[name] = args[i+1]
			i++
		default:
			m[name] = "true"
		}
	}
	return m
}

func port(t *testing.T, addr string) int32 {
	t.Helper()
	host, p, err := net.SplitHostPort(addr)
	require.NoError(t, err, addr)
	assert.Equal(t, "0.0.0.0", host, "%s: reachable from outside the container", addr)
	n, err := strconv.Atoi(p)
	require.NoError(t, err)
	return int32(n)
}

// containerPort returns the number of the container's named port.
func containerPort(t *testing.T, c corev1.Container, name string) int32 {
	t.Helper()
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	t.Errorf("%s has no port %s", c.Name, name)
	return 0
}

// TestDaemonSetPortsAndProbes: probes use declared ports; the Service
// selects the pods and exposes the ports the configuration listens on.
func TestDaemonSetPortsAndProbes(t *testing.T) {
	c := build(t)
	conf := clusterConf(t)
	svc, out := conf.only(t, "SERVICE", ""), conf.only(t, "OUTPUT", "journalship")
	flb, ret := container(t, c.ds, "fluent-bit"), container(t, c.ds, "retention")
	for _, ctr := range []corev1.Container{flb, ret} {
		for _, p := range ctr.Ports {
			assert.Empty(t, validation.IsValidPortName(p.Name), p.Name)
		}
		for _, probe := range []*corev1.Probe{ctr.LivenessProbe, ctr.ReadinessProbe} {
			require.NotNil(t, probe, ctr.Name)
			require.NotNil(t, probe.HTTPGet, ctr.Name)
			containerPort(t, ctr, probe.HTTPGet.Port.StrVal)
		}
	}
	httpPort, err := strconv.Atoi(value(svc, "HTTP_Port"))
	require.NoError(t, err)
	port(t, value(svc, "HTTP_Listen")+":0")
	want := map[string]int32{
		"fluent-bit":     int32(httpPort),
		"plugin-metrics": port(t, setting(out, "Metrics_Address")),
		"retention":      port(t, flagArgs(ret.Args)["metrics-address"]),
	}
	assert.Equal(t, want["fluent-bit"], containerPort(t, flb, flb.LivenessProbe.HTTPGet.Port.StrVal))
	assert.Equal(t, "/api/v1/health", flb.LivenessProbe.HTTPGet.Path, "Health_Check On")
	assert.Equal(t, want["plugin-metrics"], containerPort(t, flb, "plugin-metrics"))
	assert.Equal(t, want["retention"], containerPort(t, ret, "retention"))
	got := map[string]int32{}
	for _, p := range c.svc.Spec.Ports {
		got[p.Name] = p.Port
		ctr := flb
		if p.TargetPort.StrVal == "retention" {
			ctr = ret
		}
		assert.Equal(t, p.Port, containerPort(t, ctr, p.TargetPort.StrVal), "Service port %s", p.Name)
	}
	assert.Equal(t, want, got)
	labels := c.ds.Spec.Template.Labels
	for k, v := range c.svc.Spec.Selector {
		assert.Equal(t, v, labels[k], "Service selector %s", k)
	}
	for k, v := range c.ds.Spec.Selector.MatchLabels {
		assert.Equal(t, v, labels[k], "DaemonSet selector %s", k)
	}
	assert.NotEmpty(t, c.svc.Spec.Selector)
}

// TestDaemonSetSecurity: no API access, non-root, read-only, no
// privilege escalation, no capabilities (the init container: CHOWN only,
// for the user the pod runs as), RuntimeDefault seccomp; and the
// namespace's Pod Security level that hostPath needs.
func TestDaemonSetSecurity(t *testing.T) {
	c := build(t)
	pod := c.ds.Spec.Template.Spec
	require.NotNil(t, c.sa.AutomountServiceAccountToken)
	assert.False(t, *c.sa.AutomountServiceAccountToken)
	require.NotNil(t, pod.AutomountServiceAccountToken)
	assert.False(t, *pod.AutomountServiceAccountToken)
	assert.Equal(t, c.sa.Name, pod.ServiceAccountName)
	psc := pod.SecurityContext
	require.NotNil(t, psc)
	assert.True(t, *psc.RunAsNonRoot)
	assert.NotZero(t, *psc.RunAsUser)
	assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, psc.SeccompProfile.Type)
	for _, ctr := range slices.Concat(pod.InitContainers, pod.Containers) {
		sc := ctr.SecurityContext
		require.NotNil(t, sc, ctr.Name)
		assert.False(t, *sc.AllowPrivilegeEscalation, ctr.Name)
		assert.True(t, *sc.ReadOnlyRootFilesystem, ctr.Name)
		assert.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop, ctr.Name)
		assert.Nil(t, sc.Privileged, ctr.Name)
		if ctr.Name == "state-owner" {
			assert.Equal(t, []corev1.Capability{"CHOWN"}, sc.Capabilities.Add)
			assert.Equal(t, []string{"chown", "-R", fmt.Sprintf("%d:%d", *psc.RunAsUser, *psc.RunAsGroup), volume(t, c.ds, "state").HostPath.Path}, ctr.Command)
			continue
		}
		assert.Empty(t, sc.Capabilities.Add, ctr.Name)
		assert.Nil(t, sc.RunAsUser, "%s runs as the pod's user", ctr.Name)
	}
	level := c.ns.Labels["pod-security.kubernetes.io/enforce"]
	assert.Equal(t, "privileged", level, "hostPath is refused by baseline and restricted")
	assert.Contains(t, string(readFile(t, "deploy/daemonset/namespace.yaml")), "cannot enforce \"restricted\"")
}

// TestDaemonSetRunsEverywhereAndStopsCleanly: tolerates every taint,
// never two pods per node, resources set, time to flush at shutdown, the
// node's name for Node_Name, the image's binaries.
func TestDaemonSetRunsEverywhereAndStopsCleanly(t *testing.T) {
	c := build(t)
	pod := c.ds.Spec.Template.Spec
	assert.Contains(t, pod.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists})
	ru := c.ds.Spec.UpdateStrategy.RollingUpdate
	require.NotNil(t, ru)
	assert.True(t, ru.MaxSurge == nil || ru.MaxSurge.IntValue() == 0, "no surge: pods of one node share the tail DB")
	conf := clusterConf(t)
	grace, err := strconv.Atoi(value(conf.only(t, "SERVICE", ""), "Grace"))
	require.NoError(t, err)
	timeout := setting(conf.only(t, "OUTPUT", "journalship"), "Timeout")
	require.True(t, strings.HasSuffix(timeout, "s"))
	secs, err := strconv.Atoi(strings.TrimSuffix(timeout, "s"))
	require.NoError(t, err)
	require.NotNil(t, pod.TerminationGracePeriodSeconds)
	assert.GreaterOrEqual(t, *pod.TerminationGracePeriodSeconds, int64(grace+secs), "room for Grace and a last request")
	for _, ctr := range slices.Concat(pod.InitContainers, pod.Containers) {
		r := ctr.Resources
		assert.False(t, r.Requests.Cpu().IsZero() || r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero(), "%s: requests and a memory limit", ctr.Name)
	}
	img := dockerImage(t)
	assert.Equal(t, []string{"-e", img.plugin, "-c", img.conf}, wrappedFluentBit(t, container(t, c.ds, "fluent-bit")))
	assert.Equal(t, []string{img.journalship}, container(t, c.ds, "retention").Command)
	for _, name := range []string{"fluent-bit", "retention"} {
		env := container(t, c.ds, name).Env
		i := slices.IndexFunc(env, func(e corev1.EnvVar) bool { return e.Name == "NODE_NAME" })
		require.GreaterOrEqual(t, i, 0, name)
		assert.Equal(t, "spec.nodeName", env[i].ValueFrom.FieldRef.FieldPath, name)
	}
}

// k8sVar matches Kubernetes' $(VAR), to be compared with Fluent Bit's ${VAR}.
var k8sVar = regexp.MustCompile(`\$\((\w+)\)`)

// retentionMismatches: where the retention agent's journalship settings
// differ from the Fluent Bit output's (its finalizer ships to the same Loki,
// with the same labels, into the same ledger); expand resolves variables.
func retentionMismatches(args []string, out flbSection, expand func(string) string) []string {
	if len(args) == 0 || args[0] != "retention" {
		return []string{fmt.Sprintf("not a retention command: %q", args)}
	}
	flags := flagArgs(args)
	var bad []string
	for _, s := range output.Settings {
		if s.Name == "Metrics_Address" {
			continue // one endpoint per process
		}
		flag := strings.ReplaceAll(strings.ToLower(s.Name), "_", "-")
		conf, inConf := out.get(s.Name)
		arg, inArgs := flags[flag]
		switch {
		case inArgs && (!inConf && arg != s.Default || inConf && expand(conf) != expand(arg)):
			bad = append(bad, fmt.Sprintf("--%s=%s but %s %s", flag, arg, s.Name, conf))
		case !inArgs && inConf && conf != s.Default:
			bad = append(bad, fmt.Sprintf("%s %s is not the default: give retention --%s too", s.Name, conf, flag))
		}
	}
	return bad
}

func TestRetentionFollowsTheClusterConf(t *testing.T) {
	c := build(t)
	out := clusterConf(t).only(t, "OUTPUT", "journalship")
	args := container(t, c.ds, "retention").Args
	expand := func(s string) string { return k8sVar.ReplaceAllString(s, "$${$1}") }
	assert.Empty(t, retentionMismatches(args, out, expand))
	assert.Equal(t, "journal", flagArgs(args)["status"])
	changed := slices.Clone(args)
	changed[slices.IndexFunc(changed, func(a string) bool { return strings.HasPrefix(a, "--loki-url=") })] = "--loki-url=http://other"
	assert.Len(t, retentionMismatches(changed, out, expand), 1, "a Loki_URL other than Fluent Bit's is caught")
	dropped := slices.DeleteFunc(slices.Clone(args), func(a string) bool { return strings.HasPrefix(a, "--node-name=") })
	assert.Len(t, retentionMismatches(dropped, out, expand), 1, "a missing --node-name is caught")
}
