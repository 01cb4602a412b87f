package kubernetes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/shardresult"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/servicemanager/kubernetes/unavailable"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// outcome is how the fake cluster ends one shard's pod.
type outcome struct {
	exit  int32
	phase corev1.PodPhase
	term  []byte // termination message
	log   []byte
	wait  string // a waiting reason instead of a terminated container
}

// okShard is a shard that emitted payload and ended with exit.
func okShard(t *testing.T, payload string, exit int) outcome {
	t.Helper()
	var log bytes.Buffer
	log.WriteString("time=... level=INFO msg=\"all shards started\"\n")
	sum, err := shardresult.WriteFrames(&log, []byte(payload))
	if err != nil {
		t.Fatal(err)
	}
	phase := corev1.PodSucceeded
	if exit != 0 {
		phase = corev1.PodFailed
	}
	return outcome{exit: int32(exit), phase: phase, log: log.Bytes(),
		term: shardresult.MarshalTermination(shardresult.Termination{Status: "ok", Checksum: sum, ExitCode: exit})}
}

// failedShard is a shard that ended with exit and reason, no result.
func failedShard(exit int, reason string) outcome {
	return outcome{exit: int32(exit), phase: corev1.PodFailed, log: []byte("Error: " + reason + "\n"),
		term: shardresult.MarshalTermination(shardresult.Termination{Status: "failed", ExitCode: exit, Reason: reason})}
}

// fakeCluster plays the Job controller and the kubelets for the fake
// clientset: once the Job is resumed it creates one pod per index, ends
// them as outcomes says and sets the Job's conditions.
type fakeCluster struct {
	t        *testing.T
	client   *fake.Clientset
	ns       string
	outcomes []outcome
	conds    []batchv1.JobCondition

	mu   sync.Mutex
	logs map[string][]byte // pod name -> log
	job  *batchv1.Job      // the Job as it was when resumed
}

func newFakeCluster(t *testing.T, ns string, outcomes []outcome, conds ...batchv1.JobCondition) *fakeCluster {
	return &fakeCluster{t: t, client: fake.NewClientset(), ns: ns, outcomes: outcomes, conds: conds, logs: map[string][]byte{}}
}

// start runs the fake controller until ctx ends.
func (f *fakeCluster) start(ctx context.Context) {
	go func() {
		for ctx.Err() == nil {
			time.Sleep(2 * time.Millisecond)
			jobs, err := f.client.BatchV1().Jobs(f.ns).List(ctx, metav1.ListOptions{})
			if err != nil || len(jobs.Items) != 1 {
				continue
			}
			j := jobs.Items[0]
			if j.Spec.Suspend != nil && *j.Spec.Suspend {
				continue
			}
			f.mu.Lock()
			f.job = j.DeepCopy()
			f.mu.Unlock()
			for i, o := range f.outcomes {
				f.createPod(ctx, &j, i, o)
			}
			if len(f.conds) > 0 {
				j.Status.Conditions = f.conds
				if _, err := f.client.BatchV1().Jobs(f.ns).UpdateStatus(ctx, &j, metav1.UpdateOptions{}); err != nil {
					f.t.Errorf("fake controller: update Job status: %v", err)
				}
			}
			return
		}
	}()
}

func (f *fakeCluster) createPod(ctx context.Context, j *batchv1.Job, i int, o outcome) {
	name := fmt.Sprintf("%s-%d-abcde", j.Name, i)
	cs := corev1.ContainerStatus{Name: containerName}
	if o.wait != "" {
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: o.wait, Message: "image \"" + j.Spec.Template.Spec.Containers[0].Image + "\": bad"}
	} else {
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: o.exit, Message: string(o.term), Reason: "Error"}
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns, Labels: map[string]string{
			labelInstance: j.Name, labelIndex: fmt.Sprint(i), "batch.kubernetes.io/job-name": j.Name,
		}},
		Spec:   j.Spec.Template.Spec,
		Status: corev1.PodStatus{Phase: o.phase, ContainerStatuses: []corev1.ContainerStatus{cs}},
	}
	if _, err := f.client.CoreV1().Pods(f.ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		f.t.Errorf("fake controller: create pod: %v", err)
	}
	f.mu.Lock()
	f.logs[name] = o.log
	f.mu.Unlock()
}

// podLogs is the log seam serving the fake kubelets' logs.
func (f *fakeCluster) podLogs(_ context.Context, ns, pod, container string) (io.ReadCloser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.logs[pod]
	if !ok || ns != f.ns || container != containerName {
		return nil, fmt.Errorf("no log for %s/%s container %s", ns, pod, container)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func complete() batchv1.JobCondition {
	return batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached}
}

func failedIndexes() batchv1.JobCondition {
	return batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonFailedIndexes}
}

func manager(f *fakeCluster, s Settings) *Manager {
	m := New()
	m.cfg = s
	m.client = f.client
	m.logs = f.podLogs
	m.poll = 5 * time.Millisecond
	m.getenv = func(string) string { return "" }
	return m
}

func runFake(t *testing.T, f *fakeCluster, m *Manager, job sdk.ShardJob) ([]sdk.ShardReport, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f.start(ctx)
	var progress bytes.Buffer
	job.Progress = &progress
	reports, err := m.RunShards(ctx, job)
	if ctx.Err() != nil {
		t.Fatalf("RunShards did not return within 30s (%v); progress:\n%s", ctx.Err(), progress.String())
	}
	return reports, progress.String(), err
}

func TestRunShardsCreatesTheJobServiceAndSecretAsDesigned(t *testing.T) {
	f := newFakeCluster(t, "bench", []outcome{okShard(t, "r0", 0), okShard(t, "r1", 0), okShard(t, "r2", 0)}, complete())
	m := manager(f, Settings{Image: "registry.example/aiperf:1.2", Namespace: "bench", KeepJob: true,
		NodeSelector: map[string]string{"pool": "loadgen"}, Resources: "cpu=2,memory=4Gi"})
	args := []string{"-m", "llama", "--url", "http://llm:8000", "--api-key", "sk-SECRET-123",
		"-H", "Authorization: Bearer tok-SECRET-456", "-H", "X-Trace: $HOME", "--extra-inputs", "max_tokens:$(N)",
		"--random-seed", "42", "--service-manager", "inprocess", "--shards", "1"}
	reports, progress, err := runFake(t, f, m, sdk.ShardJob{Shards: 3, Args: args, BarrierTimeout: 90 * time.Second, Exact: true})
	if err != nil {
		t.Fatalf("RunShards: %v", err)
	}
	for i, r := range reports {
		if !r.OK || r.Index != i || string(r.Result) != fmt.Sprintf("r%d", i) || r.ExitCode != 0 || r.Dir != "" {
			t.Errorf("report %d = %+v, want OK with result r%d", i, r, i)
		}
	}
	for _, want := range []string{"shard 0: Succeeded", "shard 1: Succeeded", "shard 2: Succeeded", "Job bench/aiperf-", "kept Job bench/aiperf-"} {
		if !strings.Contains(progress, want) {
			t.Errorf("progress lacks %q:\n%s", want, progress)
		}
	}

	ctx := context.Background()
	jobs, _ := f.client.BatchV1().Jobs("bench").List(ctx, metav1.ListOptions{})
	if len(jobs.Items) != 1 {
		t.Fatalf("%d Jobs kept, want 1 (keep_job)", len(jobs.Items))
	}
	j := jobs.Items[0]
	name := j.Name
	if !strings.HasPrefix(name, "aiperf-") || len(name) != len("aiperf-")+5 {
		t.Errorf("Job name %q, want aiperf-<5 random characters>", name)
	}
	if j.Labels[labelName] != "aiperf" || j.Labels[labelInstance] != name {
		t.Errorf("Job labels %v", j.Labels)
	}
	s := j.Spec
	if *s.Completions != 3 || *s.Parallelism != 3 || *s.CompletionMode != batchv1.IndexedCompletion ||
		*s.BackoffLimitPerIndex != 0 || s.MaxFailedIndexes != nil || *s.Suspend || s.TTLSecondsAfterFinished != nil {
		t.Errorf("Job spec: completions %d parallelism %d mode %s backoffLimitPerIndex %d maxFailedIndexes %v suspend %v ttl %v",
			*s.Completions, *s.Parallelism, *s.CompletionMode, *s.BackoffLimitPerIndex, s.MaxFailedIndexes, *s.Suspend, s.TTLSecondsAfterFinished)
	}
	if f.job == nil || *f.job.Spec.Suspend {
		t.Error("the Job was not resumed after the Service and Secret were created")
	}
	rules := s.PodFailurePolicy.Rules
	if len(rules) != 2 || rules[0].Action != batchv1.PodFailurePolicyActionFailJob ||
		*rules[0].OnExitCodes.ContainerName != "aiperf" || rules[0].OnExitCodes.Operator != batchv1.PodFailurePolicyOnExitCodesOpIn ||
		!slices.Equal(rules[0].OnExitCodes.Values, []int32{6, 7}) ||
		rules[1].Action != batchv1.PodFailurePolicyActionFailIndex ||
		!reflect.DeepEqual(rules[1].OnPodConditions, []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}) {
		t.Errorf("podFailurePolicy rules %+v", rules)
	}
	ps := s.Template.Spec
	if ps.RestartPolicy != corev1.RestartPolicyNever || ps.Subdomain != name || *ps.AutomountServiceAccountToken ||
		*ps.EnableServiceLinks || !reflect.DeepEqual(ps.NodeSelector, map[string]string{"pool": "loadgen"}) ||
		s.Template.Labels[labelInstance] != name || len(ps.Containers) != 1 {
		t.Errorf("pod spec: %+v labels %v", ps, s.Template.Labels)
	}
	c := ps.Containers[0]
	wantRes := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}
	if c.Name != "aiperf" || c.Image != "registry.example/aiperf:1.2" || c.TerminationMessagePolicy != corev1.TerminationMessageReadFile ||
		c.TerminationMessagePath != "/dev/termination-log" || !reflect.DeepEqual(c.Resources.Requests, wantRes) || !reflect.DeepEqual(c.Resources.Limits, wantRes) {
		t.Errorf("container: name %s image %s termination %s %s resources %v", c.Name, c.Image, c.TerminationMessagePath, c.TerminationMessagePolicy, c.Resources)
	}
	barrier := fmt.Sprintf("http://%s-0.%s:7470/aiperf/barrier", name, name)
	wantArgs := []string{"profile", "-m", "llama", "--url", "http://llm:8000",
		"--header", "$(AIPERF_SECRET_HEADER_0)", "-H", "X-Trace: $$HOME", "--extra-inputs", "max_tokens:$$(N)",
		"--random-seed", "42", "--service-manager", "inprocess", "--shards", "1",
		"--shard-index=$(JOB_COMPLETION_INDEX)", "--shard-count=3", "--shard-barrier=" + barrier,
		"--shard-barrier-listen=:7470", "--shard-barrier-timeout=90", "--artifact-dir=/tmp/aiperf", "--ui=none",
		"--shard-emit-result", "--exact"}
	if !slices.Equal(c.Args, wantArgs) {
		t.Errorf("container args\n got %q\nwant %q", c.Args, wantArgs)
	}
	wantEnv := []corev1.EnvVar{
		{Name: "AIPERF_API_KEY", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: "api-key"}}},
		{Name: "AIPERF_SECRET_HEADER_0", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: "header-0"}}},
	}
	if !reflect.DeepEqual(c.Env, wantEnv) {
		t.Errorf("container env %+v, want %+v", c.Env, wantEnv)
	}
	spec, _ := json.Marshal(j)
	for _, secret := range []string{"sk-SECRET-123", "tok-SECRET-456"} {
		if bytes.Contains(spec, []byte(secret)) || strings.Contains(progress, secret) {
			t.Errorf("the credential %q is in the Job spec or the progress output", secret)
		}
	}

	svc, err := f.client.CoreV1().Services("bench").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Service: %v", err)
	}
	wantPorts := []corev1.ServicePort{{Name: "barrier", Port: 7470, TargetPort: intstr.FromInt32(7470), Protocol: corev1.ProtocolTCP}}
	if svc.Spec.ClusterIP != corev1.ClusterIPNone || !svc.Spec.PublishNotReadyAddresses ||
		!reflect.DeepEqual(svc.Spec.Selector, map[string]string{labelInstance: name}) || !reflect.DeepEqual(svc.Spec.Ports, wantPorts) {
		t.Errorf("Service spec %+v", svc.Spec)
	}
	sec, err := f.client.CoreV1().Secrets("bench").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Secret: %v", err)
	}
	if !reflect.DeepEqual(sec.Data, map[string][]byte{"api-key": []byte("sk-SECRET-123"), "header-0": []byte("Authorization: Bearer tok-SECRET-456")}) {
		t.Errorf("Secret data %q", sec.Data)
	}
	for _, meta := range []metav1.ObjectMeta{svc.ObjectMeta, sec.ObjectMeta} {
		if len(meta.OwnerReferences) != 1 || meta.OwnerReferences[0].Kind != "Job" || meta.OwnerReferences[0].Name != name ||
			meta.OwnerReferences[0].APIVersion != "batch/v1" || meta.Labels[labelName] != "aiperf" {
			t.Errorf("%s: owner references %+v labels %v, want the Job", meta.Name, meta.OwnerReferences, meta.Labels)
		}
	}
}

func TestRunShardsWithoutCredentialsCreatesNoSecretAndCleansUp(t *testing.T) {
	f := newFakeCluster(t, "default", []outcome{okShard(t, "only", 3)}, complete())
	m := manager(f, Settings{Image: "aiperf:dev"})
	dir := t.TempDir()
	reports, progress, err := runFake(t, f, m, sdk.ShardJob{Shards: 1, Args: []string{"-m", "x"}, ArtifactDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	// Exit 3 (failed requests) is a verdict on the shard's load, not a
	// lost shard: its result counts.
	if len(reports) != 1 || !reports[0].OK || reports[0].ExitCode != 3 || string(reports[0].Result) != "only" {
		t.Fatalf("reports %+v", reports)
	}
	if !strings.Contains(progress, "shard 0: Finished (exit 3)") || !strings.Contains(progress, "kubernetes: deleted Job default/aiperf-") {
		t.Errorf("progress:\n%s", progress)
	}
	log, err := os.ReadFile(filepath.Join(dir, "shards", "shard-0.log"))
	if err != nil || !bytes.Equal(log, f.outcomes[0].log) {
		t.Errorf("kept log: %v (%d bytes, want %d)", err, len(log), len(f.outcomes[0].log))
	}
	var deletedJob, deletedSvc bool
	for _, a := range f.client.Actions() {
		switch {
		case a.GetVerb() == "create" && a.GetResource().Resource == "secrets":
			t.Error("a Secret was created for a command line without credentials")
		case a.GetVerb() == "delete" && a.GetResource().Resource == "jobs":
			d := a.(k8stesting.DeleteAction)
			if p := d.GetDeleteOptions().PropagationPolicy; p == nil || *p != metav1.DeletePropagationBackground {
				t.Errorf("Job deleted with propagation %v, want Background", p)
			}
			deletedJob = true
		case a.GetVerb() == "delete" && a.GetResource().Resource == "services":
			deletedSvc = true
		}
	}
	jobs, _ := f.client.BatchV1().Jobs("default").List(context.Background(), metav1.ListOptions{})
	svcs, _ := f.client.CoreV1().Services("default").List(context.Background(), metav1.ListOptions{})
	if !deletedJob || !deletedSvc || len(jobs.Items) != 0 || len(svcs.Items) != 0 {
		t.Errorf("cleanup: deleted Job %v Service %v; left %d Jobs %d Services", deletedJob, deletedSvc, len(jobs.Items), len(svcs.Items))
	}
	if f.job.Spec.TTLSecondsAfterFinished == nil || *f.job.Spec.TTLSecondsAfterFinished != 3600 {
		t.Errorf("ttlSecondsAfterFinished %v, want 3600 without keep_job", f.job.Spec.TTLSecondsAfterFinished)
	}
}

func TestRunShardsReportsEachShardAndNeverFailsTheRunForOne(t *testing.T) {
	// Partial: shard 1 failed (exit 1), shard 2's log lost its end
	// line, shard 3's log holds another result than its termination
	// message names; shard 0 is fine. No error: the CLI marks it PARTIAL.
	good := okShard(t, "r0", 0)
	truncated := okShard(t, "r2", 0)
	truncated.log = truncated.log[:bytes.Index(truncated.log, []byte("AIPERF-RESULT-END"))]
	swapped := okShard(t, "r3", 0)
	swapped.log = okShard(t, "other", 0).log
	f := newFakeCluster(t, "ns", []outcome{good, failedShard(1, "connect: connection refused"), truncated, swapped}, failedIndexes())
	reports, progress, err := runFake(t, f, manager(f, Settings{Image: "aiperf:dev", Namespace: "ns"}), sdk.ShardJob{Shards: 4, Args: []string{"-m", "x"}})
	if err != nil {
		t.Fatalf("RunShards: %v", err)
	}
	want := []struct {
		ok     bool
		exit   int
		reason string
	}{
		{true, 0, ""},
		{false, 1, "exit 1: connect: connection refused"},
		{false, 0, "the result in its log: result incomplete: 1 of 1 frames and no end line"},
		{false, 0, "its termination message says sha256:"},
	}
	for i, w := range want {
		r := reports[i]
		if r.OK != w.ok || r.ExitCode != w.exit || !strings.Contains(r.Reason, w.reason) || (w.ok && string(r.Result) != "r0") || (!w.ok && r.Result != nil) {
			t.Errorf("shard %d: %+v, want ok=%v exit %d reason containing %q", i, r, w.ok, w.exit, w.reason)
		}
	}
	for _, line := range []string{"shard 1: Failed (exit 1: connect: connection refused)", "1 of 4 shards completed"} {
		if !strings.Contains(progress, line) {
			t.Errorf("progress lacks %q:\n%s", line, progress)
		}
	}
}

func TestRunShardsFailsFastWhenThePodFailurePolicyStopsTheJob(t *testing.T) {
	for _, tc := range []struct {
		exit int
		want string
	}{
		{6, "shard 1 exited 6 (the shards' plans differ): shard 1: shards disagree on the plan"},
		{7, "shard 1 exited 7 (not every shard reached the start barrier in time): shard 1: shards disagree on the plan"},
	} {
		t.Run(fmt.Sprint(tc.exit), func(t *testing.T) {
			cond := batchv1.JobCondition{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonPodFailurePolicy,
				Message: "Container aiperf for pod ns/x-1 failed with exit code 6 matching FailJob rule at index 0"}
			f := newFakeCluster(t, "ns", []outcome{okShard(t, "r0", 0), failedShard(tc.exit, "shard 1: shards disagree on the plan")}, cond)
			reports, _, err := runFake(t, f, manager(f, Settings{Image: "aiperf:dev", Namespace: "ns"}), sdk.ShardJob{Shards: 2})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "stopped by its pod failure policy") {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if len(reports) != 2 || reports[1].ExitCode != tc.exit || reports[1].OK {
				t.Errorf("reports %+v: the CLI takes the exit status from shard 1's", reports)
			}
		})
	}
}

func TestRunShardsGivesUpOnAPodThatCannotStart(t *testing.T) {
	f := newFakeCluster(t, "ns", []outcome{okShard(t, "r0", 0), {phase: corev1.PodPending, wait: "InvalidImageName"}})
	f.outcomes[0].phase, f.outcomes[0].term = corev1.PodPending, nil
	f.outcomes[0].wait = "ContainerCreating"
	reports, progress, err := runFake(t, f, manager(f, Settings{Image: "Bad Image", Namespace: "ns"}), sdk.ShardJob{Shards: 2})
	if err == nil || !strings.Contains(err.Error(), "shard 1: pod aiperf-") || !strings.Contains(err.Error(), "cannot start: InvalidImageName") {
		t.Fatalf("error %v", err)
	}
	if len(reports) != 2 || reports[1].OK || !strings.Contains(reports[1].Reason, "did not finish (Pending (InvalidImageName))") {
		t.Errorf("reports %+v", reports)
	}
	if !strings.Contains(progress, "shard 0: Pending\n") || !strings.Contains(progress, "shard 1: Pending (InvalidImageName)") {
		t.Errorf("progress:\n%s", progress)
	}
}

func TestRunShardsGivesUpOnAnImageItCannotPull(t *testing.T) {
	f := newFakeCluster(t, "ns", []outcome{{phase: corev1.PodPending, wait: "ImagePullBackOff"}})
	m := manager(f, Settings{Image: "registry.example/missing:1", Namespace: "ns"})
	m.pullGrace = 20 * time.Millisecond
	_, _, err := runFake(t, f, m, sdk.ShardJob{Shards: 1})
	if err == nil || !strings.Contains(err.Error(), "shard 0: pod aiperf-") || !strings.Contains(err.Error(), "cannot pull image registry.example/missing:1 for 20ms: ImagePullBackOff") {
		t.Fatalf("error %v", err)
	}
}

func TestRunShardsCleansUpWhenInterrupted(t *testing.T) {
	f := newFakeCluster(t, "ns", nil) // the Job never ends
	m := manager(f, Settings{Image: "aiperf:dev", Namespace: "ns"})
	ctx, cancel := context.WithCancel(context.Background())
	f.start(ctx)
	go func() {
		for {
			if jobs, _ := f.client.BatchV1().Jobs("ns").List(ctx, metav1.ListOptions{}); len(jobs.Items) == 1 && !*jobs.Items[0].Spec.Suspend {
				cancel() // Ctrl-C once the run is under way
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, err := m.RunShards(ctx, sdk.ShardJob{Shards: 2, Args: []string{"--api-key", "k"}})
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("error %v", err)
	}
	bg := context.Background()
	jobs, _ := f.client.BatchV1().Jobs("ns").List(bg, metav1.ListOptions{})
	svcs, _ := f.client.CoreV1().Services("ns").List(bg, metav1.ListOptions{})
	secs, _ := f.client.CoreV1().Secrets("ns").List(bg, metav1.ListOptions{})
	if len(jobs.Items)+len(svcs.Items)+len(secs.Items) != 0 {
		t.Errorf("left after Ctrl-C: %d Jobs, %d Services, %d Secrets", len(jobs.Items), len(svcs.Items), len(secs.Items))
	}
}

// Log retrieval through client-go's fake clientset: the plugin asks the
// pods/log subresource for the shard container's log, and what the API
// returns is the result read back.
func TestLogsAreReadThroughThePodsLogSubresource(t *testing.T) {
	shard := okShard(t, `{"records":12}`, 0)
	f := newFakeCluster(t, "ns", []outcome{shard}, complete())
	var logReqs []k8stesting.GenericAction
	f.client.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "log" {
			return false, nil, nil
		}
		logReqs = append(logReqs, a.(k8stesting.GenericAction))
		return true, &runtime.Unknown{Raw: shard.log}, nil
	})
	m := manager(f, Settings{Image: "aiperf:dev", Namespace: "ns"})
	m.logs = nil // the API, not the test seam
	reports, _, err := runFake(t, f, m, sdk.ShardJob{Shards: 1})
	if err != nil || len(reports) != 1 || !reports[0].OK || string(reports[0].Result) != `{"records":12}` {
		t.Fatalf("reports %+v, error %v", reports, err)
	}
	if len(logReqs) != 1 || logReqs[0].GetNamespace() != "ns" {
		t.Fatalf("log requests %+v, want one in ns", logReqs)
	}
	if opts, ok := logReqs[0].GetValue().(*corev1.PodLogOptions); !ok || opts.Container != "aiperf" {
		t.Errorf("log options %+v, want container aiperf", logReqs[0].GetValue())
	}

	// The fake's own answer (no reactor) is "fake logs": no frames.
	rc, err := apiLogs(fake.NewClientset())(context.Background(), "ns", "p", "aiperf")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, _, err := shardresult.ReadFrames(rc); err != shardresult.ErrNoFrames {
		t.Errorf("ReadFrames of the fake's default log: %v, want ErrNoFrames", err)
	}
}

func TestSplitSecrets(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		env      string
		wantArgs []string
		wantData map[string]string
	}{
		{"none", []string{"-m", "x", "--url", "http://a:1"}, "", []string{"-m", "x", "--url", "http://a:1"}, nil},
		{"api key separate", []string{"--api-key", "k1", "-m", "x"}, "", []string{"-m", "x"}, map[string]string{"api-key": "k1"}},
		{"api key joined", []string{"--api-key=k2"}, "", []string{}, map[string]string{"api-key": "k2"}},
		{"api key from the launcher's environment", []string{"-m", "x"}, "k3", []string{"-m", "x"}, map[string]string{"api-key": "k3"}},
		{"flag beats environment", []string{"--api-key", "k4"}, "k3", []string{}, map[string]string{"api-key": "k4"}},
		{"header forms", []string{"-H", "x-api-key: a", "--header=Api-Key:b", "-H=authorization:c", "-HCookie: d", "--header", "X-Model: m"}, "",
			[]string{"--header", "$(AIPERF_SECRET_HEADER_0)", "--header", "$(AIPERF_SECRET_HEADER_1)", "--header", "$(AIPERF_SECRET_HEADER_2)",
				"--header", "$(AIPERF_SECRET_HEADER_3)", "--header", "X-Model: m"},
			map[string]string{"header-0": "x-api-key: a", "header-1": "Api-Key:b", "header-2": "authorization:c", "header-3": "Cookie: d"}},
		{"json header object", []string{"-H", `{"Authorization":"Bearer z","X-A":"1"}`}, "", []string{"--header", "$(AIPERF_SECRET_HEADER_0)"},
			map[string]string{"header-0": `{"Authorization":"Bearer z","X-A":"1"}`}},
		{"dollars doubled", []string{"--prompt", "cost $5 $(x) $$"}, "", []string{"--prompt", "cost $$5 $$(x) $$$$"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, data, env := splitSecrets(tc.args, func(k string) string {
				if k == "AIPERF_API_KEY" {
					return tc.env
				}
				return ""
			})
			if !slices.Equal(args, tc.wantArgs) {
				t.Errorf("args %q, want %q", args, tc.wantArgs)
			}
			got := map[string]string{}
			for k, v := range data {
				got[k] = string(v)
			}
			if len(tc.wantData) == 0 && len(got) == 0 {
				if env != nil {
					t.Errorf("env %v without a Secret", env)
				}
				return
			}
			if !reflect.DeepEqual(got, tc.wantData) || len(env) != len(tc.wantData) {
				t.Errorf("secret data %q env %+v, want %q", got, env, tc.wantData)
			}
			for _, e := range env {
				if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || tc.wantData[e.ValueFrom.SecretKeyRef.Key] == "" {
					t.Errorf("env %+v does not come from the Secret", e)
				}
			}
		})
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{Image: "a:1", Resources: "cpu=500m, memory=1Gi,nvidia.com/gpu=1", NodeSelector: map[string]string{"kubernetes.io/arch": "amd64"}, Namespace: "bench-1"}, ""},
		{Settings{}, "setting image (--image) is required"},
		{Settings{Image: "a", Resources: "cpu"}, `setting resources "cpu": item "cpu": want name=quantity`},
		{Settings{Image: "a", Resources: "cpu=two"}, `setting resources "cpu=two": cpu=two: quantities must match`},
		{Settings{Image: "a", Resources: "cpu=1,cpu=2"}, "cpu given twice"},
		{Settings{Image: "a", NodeSelector: map[string]string{"pool": "bad value"}}, "setting node_selector (--node-selector pool=bad value): value:"},
		{Settings{Image: "a", NodeSelector: map[string]string{"bad key!": "x"}}, "setting node_selector (--node-selector bad key!=x): key:"},
		{Settings{Image: "a", Namespace: "Bench"}, "setting namespace (--namespace Bench)"},
	} {
		m := New()
		m.cfg = tc.s
		err := m.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: Validate() = %v, want %q", tc.s, err, tc.want)
		}
	}
}

func TestNamespaceComesFromTheKubeconfigContext(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	const cfg = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443"}
users:
- name: u
  user: {token: t}
contexts:
- name: bench
  context: {cluster: c, user: u, namespace: loadtest}
- name: plain
  context: {cluster: c, user: u}
current-context: bench
`
	if err := os.WriteFile(kc, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{Kubeconfig: kc}, "loadtest"},
		{Settings{Kubeconfig: kc, Context: "plain"}, "default"},
		{Settings{Kubeconfig: kc, Namespace: "mine"}, "mine"},
	} {
		m := New()
		m.cfg = tc.s
		_, ns, err := m.connect()
		if err != nil || ns != tc.want {
			t.Errorf("%+v: namespace %q (%v), want %q", tc.s, ns, err, tc.want)
		}
	}
	m := New()
	m.cfg = Settings{Kubeconfig: filepath.Join(t.TempDir(), "missing")}
	if _, _, err := m.connect(); err == nil || !strings.Contains(err.Error(), "load the kubeconfig") {
		t.Errorf("missing kubeconfig: %v", err)
	}
}

// The manager a binary without the kubernetes tag carries takes the same
// settings, so a setting that works with one works with the other.
func TestUnavailableManagerTakesTheSameSettings(t *testing.T) {
	u := unavailable.New()
	if err := sdk.ApplyConfig(u, "service_manager.kubernetes", []byte(`{"image":"a","keep_job":true,"node_selector":{"a":"b"}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := u.RunShards(context.Background(), sdk.ShardJob{Shards: 2}); err == nil || !strings.Contains(err.Error(), "-tags kubernetes") {
		t.Errorf("RunShards: %v", err)
	}
}
