//go:build k8s

// The kubernetes manager against a real kube-apiserver (and etcd) and the
// real Job and garbage-collector controllers, started by envtest from the
// binaries scripts/k8s-binaries.sh builds: `make test-k8s`. There is no
// kubelet: the test plays it, moving the pods the Job controller creates
// to Running and then to their end through the API (phase, exit status,
// termination message), and serving their logs through the LogSource seam.
package kubernetes

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8s "k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// assetsDir is where scripts/k8s-binaries.sh puts kube-apiserver, etcd
// and kube-controller-manager (KUBEBUILDER_ASSETS overrides it).
func assetsDir(t *testing.T) string {
	dir := os.Getenv("KUBEBUILDER_ASSETS")
	if dir == "" {
		dir, _ = filepath.Abs("../../../../.cache/k8s-v1.37.2/bin")
	}
	for _, b := range []string{"kube-apiserver", "etcd", "kube-controller-manager"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			t.Fatalf("%s: %v: build the binaries with scripts/k8s-binaries.sh (make test-k8s does)", b, err)
		}
	}
	return dir
}

// startCluster starts etcd, kube-apiserver and kube-controller-manager
// (Job and garbage-collector controllers only) and returns a client.
func startCluster(t *testing.T) (k8s.Interface, string) {
	assets := assetsDir(t)
	env := &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: 2 * time.Minute}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("envtest: start kube-apiserver and etcd: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("envtest: stop: %v", err)
		}
	})
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	if err := os.WriteFile(kubeconfig, env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "kube-controller-manager.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	kcm := exec.Command(filepath.Join(assets, "kube-controller-manager"),
		"--kubeconfig="+kubeconfig,
		"--controllers=job-controller,garbage-collector-controller",
		"--leader-elect=false",
		"--secure-port=0", // serve nothing: nothing here probes it
		"--concurrent-job-syncs=5",
		"--v=2")
	kcm.Stdout, kcm.Stderr = logFile, logFile
	if err := kcm.Start(); err != nil {
		t.Fatalf("start kube-controller-manager: %v", err)
	}
	t.Cleanup(func() {
		_ = kcm.Process.Kill()
		_ = kcm.Wait()
		logFile.Close()
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				t.Logf("kube-controller-manager log (last 4 KiB):\n%s", b[max(0, len(b)-4096):])
			}
		}
	})
	client, err := k8s.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client, kubeconfig
}

// kubelet plays the kubelets for one namespace: every pod the Job
// controller creates runs, then ends as outcomes[index] says; a nil
// outcome leaves the pod running.
type kubelet struct {
	t        *testing.T
	client   k8s.Interface
	ns       string
	outcomes []*outcome

	mu      sync.Mutex
	logs    map[string][]byte
	seen    map[string]*corev1.Pod // pod name -> the pod as created
	secrets []*corev1.Secret       // Secrets present when the pods ran
}

func newKubelet(t *testing.T, client k8s.Interface, ns string, outcomes ...*outcome) *kubelet {
	ctx := context.Background()
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", ns, err)
	}
	return &kubelet{t: t, client: client, ns: ns, outcomes: outcomes, logs: map[string][]byte{}, seen: map[string]*corev1.Pod{}}
}

func (k *kubelet) run(ctx context.Context) {
	go func() {
		for ctx.Err() == nil {
			pods, err := k.client.CoreV1().Pods(k.ns).List(ctx, metav1.ListOptions{})
			if err == nil {
				for i := range pods.Items {
					k.step(ctx, &pods.Items[i])
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
}

// step moves one pod on: Pending -> Running -> its outcome.
func (k *kubelet) step(ctx context.Context, pod *corev1.Pod) {
	if pod.DeletionTimestamp != nil || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return
	}
	i, err := strconv.Atoi(pod.Labels[labelIndex])
	if err != nil || i >= len(k.outcomes) {
		k.t.Errorf("pod %s has completion index label %q", pod.Name, pod.Labels[labelIndex])
		return
	}
	k.mu.Lock()
	if _, ok := k.seen[pod.Name]; !ok {
		k.seen[pod.Name] = pod.DeepCopy()
		if secs, err := k.client.CoreV1().Secrets(k.ns).List(ctx, metav1.ListOptions{}); err == nil {
			for j := range secs.Items {
				k.secrets = append(k.secrets, &secs.Items[j])
			}
		}
	}
	k.mu.Unlock()
	now := metav1.Now()
	switch o := k.outcomes[i]; {
	case pod.Status.Phase != corev1.PodRunning:
		pod.Status.Phase = corev1.PodRunning
		pod.Status.StartTime = &now
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: containerName, Image: pod.Spec.Containers[0].Image, Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}
	case o == nil:
		return // runs until the Job stops it
	default:
		k.mu.Lock()
		k.logs[pod.Name] = o.log
		k.mu.Unlock()
		pod.Status.Phase = o.phase
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: containerName, Image: pod.Spec.Containers[0].Image,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: o.exit, Message: string(o.term), Reason: map[bool]string{true: "Completed", false: "Error"}[o.exit == 0],
				StartedAt: *pod.Status.StartTime, FinishedAt: now,
			}}}}
	}
	if _, err := k.client.CoreV1().Pods(k.ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
		k.t.Errorf("kubelet: update pod %s: %v", pod.Name, err)
	}
}

// podLogs serves the logs the kubelet's pods wrote.
func (k *kubelet) podLogs(_ context.Context, ns, pod, container string) (io.ReadCloser, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	b, ok := k.logs[pod]
	if !ok || ns != k.ns || container != containerName {
		return nil, fmt.Errorf("no log for %s/%s container %s", ns, pod, container)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (k *kubelet) manager(s Settings) *Manager {
	m := New()
	s.Image, s.Namespace = "aiperf:test", k.ns
	m.cfg = s
	m.client = k.client
	m.logs = k.podLogs
	m.poll = 100 * time.Millisecond
	m.getenv = func(string) string { return "" }
	return m
}

func (k *kubelet) runShards(t *testing.T, m *Manager, job sdk.ShardJob) ([]sdk.ShardReport, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	k.run(ctx)
	var progress bytes.Buffer
	job.Progress = &progress
	reports, err := m.RunShards(ctx, job)
	t.Logf("progress:\n%s", progress.String())
	if ctx.Err() != nil {
		t.Fatalf("RunShards did not end within a minute (%v); progress:\n%s", ctx.Err(), progress.String())
	}
	return reports, progress.String(), err
}

// gone waits until nothing of the run is left in the namespace: the Job,
// its pods, Service and Secret.
func (k *kubelet) gone(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	var left string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		jobs, err1 := k.client.BatchV1().Jobs(k.ns).List(ctx, metav1.ListOptions{})
		pods, err2 := k.client.CoreV1().Pods(k.ns).List(ctx, metav1.ListOptions{})
		svcs, err3 := k.client.CoreV1().Services(k.ns).List(ctx, metav1.ListOptions{})
		secs, err4 := k.client.CoreV1().Secrets(k.ns).List(ctx, metav1.ListOptions{})
		if err := firstErr(err1, err2, err3, err4); err != nil {
			t.Fatal(err)
		}
		left = fmt.Sprintf("%d Jobs, %d pods, %d Services, %d Secrets", len(jobs.Items), len(pods.Items), len(svcs.Items), len(secs.Items))
		if len(jobs.Items)+len(pods.Items)+len(svcs.Items)+len(secs.Items) == 0 {
			return
		}
	}
	t.Errorf("after 60s the namespace %s still holds %s", k.ns, left)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func TestEnvtestIndexedJob(t *testing.T) {
	client, kubeconfig := startCluster(t)

	t.Run("success", func(t *testing.T) {
		o := []outcome{okShard(t, "r0", 0), okShard(t, "r1", 0), okShard(t, "r2", 0)}
		k := newKubelet(t, client, "success", &o[0], &o[1], &o[2])
		reports, progress, err := k.runShards(t, k.manager(Settings{}), sdk.ShardJob{Shards: 3, Args: []string{"-m", "x", "--api-key", "sk-envtest"}, BarrierTimeout: time.Minute})
		if err != nil {
			t.Fatalf("RunShards: %v\n%s", err, progress)
		}
		for i, r := range reports {
			if !r.OK || string(r.Result) != fmt.Sprintf("r%d", i) {
				t.Errorf("shard %d: %+v", i, r)
			}
		}
		for _, line := range []string{"shard 0: Running", "shard 1: Succeeded", "shard 2: Succeeded"} {
			if !strings.Contains(progress, line) {
				t.Errorf("progress lacks %q:\n%s", line, progress)
			}
		}
		// The pods the Job controller made: one per index, each named
		// and addressed as the barrier URL expects, with its index.
		k.mu.Lock()
		pods := k.seen
		secrets := k.secrets
		k.mu.Unlock()
		if len(pods) != 3 {
			t.Fatalf("%d pods created, want 3", len(pods))
		}
		var hosts []string
		for _, p := range pods {
			c := p.Spec.Containers[0]
			hosts = append(hosts, p.Spec.Hostname+"."+p.Spec.Subdomain)
			hasIndexEnv := slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
				return e.Name == "JOB_COMPLETION_INDEX" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil
			})
			if !hasIndexEnv || !slices.Contains(c.Args, "--shard-index=$(JOB_COMPLETION_INDEX)") || *p.Spec.AutomountServiceAccountToken {
				t.Errorf("pod %s: env %+v args %q", p.Name, c.Env, c.Args)
			}
			if slices.ContainsFunc(c.Args, func(a string) bool { return strings.Contains(a, "sk-envtest") }) {
				t.Errorf("pod %s carries the API key in its args", p.Name)
			}
		}
		slices.Sort(hosts)
		job := strings.Split(hosts[0], "-0.")[0]
		if want := []string{job + "-0." + job, job + "-1." + job, job + "-2." + job}; !slices.Equal(hosts, want) {
			t.Errorf("pod host names %v, want %v", hosts, want)
		}
		if len(secrets) == 0 || string(secrets[0].Data["api-key"]) != "sk-envtest" {
			t.Errorf("the Secret with the API key did not exist when the pods ran (%d seen)", len(secrets))
		}
		k.gone(t)
	})

	t.Run("partial", func(t *testing.T) {
		o := []outcome{okShard(t, "r0", 0), okShard(t, "r1", 0), failedShard(1, "connect: connection refused")}
		k := newKubelet(t, client, "partial", &o[0], &o[1], &o[2])
		reports, progress, err := k.runShards(t, k.manager(Settings{}), sdk.ShardJob{Shards: 3})
		if err != nil {
			t.Fatalf("RunShards: %v (one failed shard is PARTIAL, not an error)", err)
		}
		if len(reports) != 3 || !reports[0].OK || !reports[1].OK || reports[2].OK || reports[2].ExitCode != 1 ||
			reports[2].Reason != "exit 1: connect: connection refused" {
			t.Errorf("reports %+v", reports)
		}
		if !strings.Contains(progress, "shard 2: Failed (exit 1: connect: connection refused)") || !strings.Contains(progress, "2 of 3 shards completed") {
			t.Errorf("progress:\n%s", progress)
		}
		k.gone(t)
	})

	t.Run("fail fast", func(t *testing.T) {
		// Shard 1 finds another plan and exits 6; shards 0 and 2 would
		// run on: the pod failure policy stops the Job at once.
		mismatch := failedShard(6, "shard 1: shards disagree on the plan: shard 1's plan sha256:ab differs")
		k := newKubelet(t, client, "failfast", nil, &mismatch, nil)
		reports, progress, err := k.runShards(t, k.manager(Settings{}), sdk.ShardJob{Shards: 3})
		if err == nil || !strings.Contains(err.Error(), "shard 1 exited 6 (the shards' plans differ): shard 1: shards disagree on the plan") {
			t.Fatalf("error %v, want the pod failure policy's stop naming shard 1\n%s", err, progress)
		}
		if len(reports) != 3 || reports[1].ExitCode != 6 {
			t.Errorf("reports %+v", reports)
		}
		k.gone(t)
	})

	t.Run("keep job", func(t *testing.T) {
		o := []outcome{okShard(t, "r0", 0), okShard(t, "r1", 0)}
		k := newKubelet(t, client, "keep", &o[0], &o[1])
		_, progress, err := k.runShards(t, k.manager(Settings{KeepJob: true}), sdk.ShardJob{Shards: 2, Args: []string{"-H", "Authorization: Bearer t"}})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		jobs, err := client.BatchV1().Jobs(k.ns).List(ctx, metav1.ListOptions{})
		if err != nil || len(jobs.Items) != 1 || jobCondition(&jobs.Items[0], batchv1.JobComplete) == nil {
			t.Fatalf("kept Jobs: %v %+v", err, jobs)
		}
		name := jobs.Items[0].Name
		if _, err := client.CoreV1().Services(k.ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("Service: %v", err)
		}
		if _, err := client.CoreV1().Secrets(k.ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("Secret: %v", err)
		}
		if !strings.Contains(progress, "kept Job keep/"+name) {
			t.Errorf("progress:\n%s", progress)
		}
		// Owner references: deleting the Job alone removes the rest
		// (the garbage collector).
		bg := metav1.DeletePropagationBackground
		if err := client.BatchV1().Jobs(k.ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
			t.Fatal(err)
		}
		k.gone(t)
	})

	t.Run("cli flags and ctrl-c", func(t *testing.T) {
		// The real binary (with the kubernetes build tag) from its flags:
		// the settings reach the Job, and Ctrl-C deletes everything.
		ctx := context.Background()
		bin := filepath.Join(t.TempDir(), "aiperf")
		goTool := os.Getenv("GO")
		if goTool == "" {
			goTool = "go"
		}
		if out, err := exec.Command(goTool, "build", "-tags", "kubernetes", "-o", bin, "github.com/aiperf-go/aiperf/cmd/aiperf").CombinedOutput(); err != nil {
			t.Fatalf("build aiperf -tags kubernetes: %v\n%s", err, out)
		}
		if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cli"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd := exec.Command(bin, "profile", "-m", "llama", "--url", "http://llm.inference:8000", "--concurrency", "2", "--request-count", "8",
			"--api-key", "sk-cli-secret", "--service-manager", "kubernetes", "--shards", "2", "--image", "registry.example/aiperf:9",
			"--namespace", "cli", "--node-selector", "pool=loadgen", "--resources", "cpu=1,memory=1Gi",
			"--artifact-dir", t.TempDir(), "--plugin-config", "service_manager.kubernetes.kubeconfig="+kubeconfig)
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		var j *batchv1.Job
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline) && j == nil; time.Sleep(100 * time.Millisecond) {
			pods, _ := client.CoreV1().Pods("cli").List(ctx, metav1.ListOptions{})
			jobs, _ := client.BatchV1().Jobs("cli").List(ctx, metav1.ListOptions{})
			if pods != nil && len(pods.Items) == 2 && jobs != nil && len(jobs.Items) == 1 {
				j = &jobs.Items[0]
			}
		}
		if j == nil {
			t.Fatalf("no Job with 2 pods in namespace cli within a minute; aiperf said:\n%s", stderr.String())
		}
		c := j.Spec.Template.Spec.Containers[0]
		if c.Image != "registry.example/aiperf:9" || j.Spec.Template.Spec.NodeSelector["pool"] != "loadgen" ||
			c.Resources.Limits.Cpu().String() != "1" || c.Resources.Requests.Memory().String() != "1Gi" || *j.Spec.Completions != 2 {
			t.Errorf("Job from the CLI flags: image %s nodeSelector %v resources %v", c.Image, j.Spec.Template.Spec.NodeSelector, c.Resources)
		}
		if !slices.Contains(c.Args, "llama") || !slices.Contains(c.Args, "--shard-count=2") ||
			slices.ContainsFunc(c.Args, func(a string) bool {
				return strings.Contains(a, "sk-cli-secret") || a == "--image" || a == "--namespace"
			}) {
			t.Errorf("shard args %q", c.Args)
		}
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("aiperf did not exit within a minute of Ctrl-C:\n%s", stderr.String())
		}
		t.Logf("aiperf said:\n%s", stderr.String())
		if !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("aiperf said:\n%s", stderr.String())
		}
		k := &kubelet{t: t, client: client, ns: "cli"}
		k.gone(t)
	})
}
