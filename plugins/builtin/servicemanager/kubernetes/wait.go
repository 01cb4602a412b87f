package kubernetes

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/core/shardresult"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxAPIErrors is how many polls in a row may fail (an API server
// restart, a network blip) before the run is given up.
const maxAPIErrors = 10

// exitMeaning names the exit statuses the pod failure policy acts on.
var exitMeaning = map[int32]string{
	sdk.ShardExitPlanMismatch:   "the shards' plans differ",
	sdk.ShardExitBarrierTimeout: "not every shard reached the start barrier in time",
}

// wait polls the Job and its pods until the Job ends, writing a progress
// line whenever a shard's state changes, then reads every shard's result.
func (r *run) wait(ctx context.Context) ([]sdk.ShardReport, error) {
	p := r.plan
	last := make([]string, r.job.Shards)
	pullSince := map[string]time.Time{}
	apiErrs := 0
	for {
		j, pods, err := r.snapshot(ctx)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case apierrors.IsNotFound(err):
			return nil, fmt.Errorf("kubernetes service manager: Job %s/%s was deleted before it ended", p.namespace, p.name)
		case err != nil:
			apiErrs++
			if apiErrs >= maxAPIErrors {
				return nil, fmt.Errorf("kubernetes service manager: watch Job %s/%s: %w", p.namespace, p.name, err)
			}
		default:
			apiErrs = 0
			byIndex := latestPods(pods, r.job.Shards)
			for i, pod := range byIndex {
				if s := podState(pod); s != "" && s != last[i] {
					last[i] = s
					r.say("shard %d: %s", i, s)
				}
			}
			if c := failedByPolicy(j); c != nil {
				reports := r.collect(ctx, byIndex)
				return reports, r.policyError(c, reports)
			}
			if jobCondition(j, batchv1.JobComplete) != nil || jobCondition(j, batchv1.JobFailed) != nil {
				reports := r.collect(ctx, byIndex)
				if c := jobCondition(j, batchv1.JobFailed); c != nil && c.Reason != batchv1.JobReasonFailedIndexes {
					// Not a shard's own failure (deadline, backoff limit):
					// say so; the reports say which shards finished.
					r.say("kubernetes: Job %s/%s failed: %s: %s", p.namespace, p.name, c.Reason, c.Message)
				}
				return reports, nil
			}
			if err := r.unstartable(byIndex, pullSince); err != nil {
				return r.collect(ctx, byIndex), err
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(r.m.poll):
		}
	}
}

// snapshot reads the Job and its pods.
func (r *run) snapshot(ctx context.Context) (*batchv1.Job, []corev1.Pod, error) {
	p := r.plan
	j, err := r.client.BatchV1().Jobs(p.namespace).Get(ctx, p.name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, err
	}
	pods, err := r.client.CoreV1().Pods(p.namespace).List(ctx, metav1.ListOptions{LabelSelector: labelInstance + "=" + p.name})
	if err != nil {
		return nil, nil, err
	}
	return j, pods.Items, nil
}

// failedByPolicy returns the condition saying the pod failure policy
// failed the Job (FailureTarget comes first, Failed once the other pods
// are gone: either is enough to stop).
func failedByPolicy(j *batchv1.Job) *batchv1.JobCondition {
	for _, t := range []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed} {
		if c := jobCondition(j, t); c != nil && c.Reason == batchv1.JobReasonPodFailurePolicy {
			return c
		}
	}
	return nil
}

// policyError names the shard(s) whose exit status failed the Job.
func (r *run) policyError(c *batchv1.JobCondition, reports []sdk.ShardReport) error {
	var parts []string
	for _, rep := range reports {
		if meaning, ok := exitMeaning[int32(rep.ExitCode)]; ok {
			reason := strings.TrimPrefix(rep.Reason, fmt.Sprintf("exit %d: ", rep.ExitCode))
			parts = append(parts, fmt.Sprintf("shard %d exited %d (%s): %s", rep.Index, rep.ExitCode, meaning, reason))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, c.Message)
	}
	return fmt.Errorf("kubernetes service manager: Job %s/%s was stopped by its pod failure policy: %s",
		r.plan.namespace, r.plan.name, strings.Join(parts, "; "))
}

// unstartable gives the run up when a pod can never start: its image name
// is invalid, it may not pull it, its configuration is broken, or it has
// waited for its image longer than pullGrace. The other shards would wait
// at the barrier for it, then fail.
func (r *run) unstartable(byIndex []*corev1.Pod, pullSince map[string]time.Time) error {
	for i, pod := range byIndex {
		w := waiting(pod)
		if w == nil {
			continue
		}
		switch w.Reason {
		case "InvalidImageName", "ErrImageNeverPull", "CreateContainerConfigError":
			return fmt.Errorf("kubernetes service manager: shard %d: pod %s cannot start: %s: %s", i, pod.Name, w.Reason, w.Message)
		case "ImagePullBackOff", "ErrImagePull":
			since, ok := pullSince[pod.Name]
			if !ok {
				pullSince[pod.Name] = time.Now()
				continue
			}
			if time.Since(since) > r.m.pullGrace {
				return fmt.Errorf("kubernetes service manager: shard %d: pod %s cannot pull image %s for %s: %s: %s",
					i, pod.Name, r.m.cfg.Image, r.m.pullGrace, w.Reason, w.Message)
			}
		}
	}
	return nil
}

// latestPods picks each index's pod: the latest one that terminated, else
// the latest one (a pod the Job replaced stays behind).
func latestPods(pods []corev1.Pod, n int) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for k := range pods {
		pod := &pods[k]
		i, err := strconv.Atoi(pod.Labels[labelIndex])
		if err != nil {
			i, err = strconv.Atoi(pod.Annotations[labelIndex])
		}
		if err != nil || i < 0 || i >= n {
			continue
		}
		cur := out[i]
		switch {
		case cur == nil:
			out[i] = pod
		case (terminated(pod) != nil) != (terminated(cur) != nil):
			if terminated(pod) != nil {
				out[i] = pod
			}
		case cur.CreationTimestamp.Before(&pod.CreationTimestamp):
			out[i] = pod
		}
	}
	return out
}

// shardContainer is the status of the pod's aiperf container.
func shardContainer(pod *corev1.Pod) *corev1.ContainerStatus {
	if pod == nil {
		return nil
	}
	for k := range pod.Status.ContainerStatuses {
		if cs := &pod.Status.ContainerStatuses[k]; cs.Name == containerName {
			return cs
		}
	}
	return nil
}

func terminated(pod *corev1.Pod) *corev1.ContainerStateTerminated {
	if cs := shardContainer(pod); cs != nil {
		return cs.State.Terminated
	}
	return nil
}

func waiting(pod *corev1.Pod) *corev1.ContainerStateWaiting {
	if cs := shardContainer(pod); cs != nil {
		return cs.State.Waiting
	}
	return nil
}

// podState is a shard's progress: its pod's phase, with the reason a
// pending pod waits or a failed one ended.
func podState(pod *corev1.Pod) string {
	if pod == nil {
		return ""
	}
	switch pod.Status.Phase {
	case corev1.PodPending, "":
		if w := waiting(pod); w != nil && w.Reason != "" && w.Reason != "ContainerCreating" {
			return "Pending (" + w.Reason + ")"
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason != "" {
				return "Pending (" + c.Reason + ")"
			}
		}
		return "Pending"
	case corev1.PodFailed:
		// Exit 2-4 (thresholds, failed requests, an invalid run) is a
		// verdict on the shard's load: it finished and its result counts.
		if t := terminated(pod); t != nil {
			if term, err := shardresult.ParseTermination([]byte(t.Message)); err == nil && term.Status == "ok" {
				return fmt.Sprintf("Finished (exit %d)", t.ExitCode)
			}
		}
		return "Failed (" + failure(pod) + ")"
	}
	return string(pod.Status.Phase)
}

// failure says why a pod failed: its exit status and the shard's reason
// (termination message), else the runtime's or the kubelet's.
func failure(pod *corev1.Pod) string {
	t := terminated(pod)
	if t == nil {
		msg := pod.Status.Reason
		if pod.Status.Message != "" {
			msg += ": " + pod.Status.Message
		}
		if msg == "" {
			msg = "the container never ran"
		}
		return msg
	}
	reason := t.Reason
	if term, err := shardresult.ParseTermination([]byte(t.Message)); err == nil && term.Reason != "" {
		reason = term.Reason
	} else if err != nil && strings.TrimSpace(t.Message) != "" {
		reason = lastLine(t.Message)
	}
	if reason == "" {
		return fmt.Sprintf("exit %d", t.ExitCode)
	}
	return fmt.Sprintf("exit %d: %s", t.ExitCode, reason)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// collect reads every shard's report, a few logs at a time.
func (r *run) collect(ctx context.Context, byIndex []*corev1.Pod) []sdk.ShardReport {
	reports := make([]sdk.ShardReport, len(byIndex))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, pod := range byIndex {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			reports[i] = r.report(ctx, i, pod)
		}()
	}
	wg.Wait()
	failed := 0
	for _, rep := range reports {
		if !rep.OK {
			failed++
		}
	}
	if failed > 0 {
		r.say("kubernetes: %d of %d shards completed", len(reports)-failed, len(reports))
	}
	return reports
}

// report is shard i's: OK when its termination message says ok and the
// result framed in its log has the checksum the message names.
func (r *run) report(ctx context.Context, i int, pod *corev1.Pod) sdk.ShardReport {
	rep := sdk.ShardReport{Index: i, ExitCode: -1}
	fail := func(format string, a ...any) sdk.ShardReport {
		rep.Reason = fmt.Sprintf(format, a...)
		return rep
	}
	if pod == nil {
		return fail("no pod ran for shard %d", i)
	}
	t := terminated(pod)
	if t == nil {
		return fail("pod %s did not finish (%s)", pod.Name, podState(pod))
	}
	rep.ExitCode = int(t.ExitCode)
	log, logErr := r.readLog(ctx, i, pod)
	term, err := shardresult.ParseTermination([]byte(t.Message))
	if err != nil {
		return fail("pod %s exited %d without a shard status (%v)%s", pod.Name, t.ExitCode, err, tail(log))
	}
	if term.Status != "ok" {
		rep.ExitCode = term.ExitCode
		return fail("exit %d: %s", term.ExitCode, term.Reason)
	}
	if logErr != nil {
		return fail("pod %s: read its log: %v", pod.Name, logErr)
	}
	payload, sum, err := shardresult.ReadFrames(bytes.NewReader(log))
	if err != nil {
		return fail("pod %s: the result in its log: %v", pod.Name, err)
	}
	if sum != term.Checksum {
		return fail("pod %s: the result in its log has checksum %s, its termination message says %s (log lines lost or rotated?)", pod.Name, sum, term.Checksum)
	}
	rep.OK, rep.ExitCode, rep.Result = true, term.ExitCode, payload
	return rep
}

// readLog reads a pod's log and keeps a copy next to the merged
// artifacts (<artifact-dir>/shards/shard-<i>.log), as the local manager
// does.
func (r *run) readLog(ctx context.Context, i int, pod *corev1.Pod) ([]byte, error) {
	rc, err := r.logs(ctx, pod.Namespace, pod.Name, containerName)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	if r.job.ArtifactDir != "" {
		path := sdk.ShardLog(r.job.ArtifactDir, i)
		err := os.MkdirAll(filepath.Dir(path), 0o755)
		if err == nil {
			err = os.WriteFile(path, b, 0o644)
		}
		if err != nil {
			r.say("kubernetes: Warning: keep shard %d's log: %v", i, err)
		}
	}
	return b, nil
}

// tail is the last log line that is not a result frame, for a failure
// reason.
func tail(log []byte) string {
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	for k := len(lines) - 1; k >= 0; k-- {
		if l := strings.TrimSpace(lines[k]); l != "" && !shardresult.IsFrameLine(l) {
			return ": " + l
		}
	}
	return ""
}
