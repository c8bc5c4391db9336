package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// at is a time the store keeps exactly (it keeps milliseconds).
func at(ms int64) time.Time { return time.UnixMilli(1_750_000_000_000 + ms) }

func TestTaskRoundTrip(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")

	in := Task{ServerID: "fs", ServerName: "Files", TaskID: "t-1", ToolCallID: "rec-1", ConversationID: c.ID,
		Tool: "files__index", Status: "working", StatusMessage: "started", PollIntervalMs: 5000, TTLMs: 60_000,
		CreatedAt: at(0), UpdatedAt: at(0)}
	got, err := s.InsertTask(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID == "" {
		t.Fatal("InsertTask gave no ID")
	}
	in.ID = got.ID
	if diff := cmp.Diff(in, got); diff != "" {
		t.Errorf("InsertTask (-want +got):\n%s", diff)
	}
	if read, err := s.Task(ctx, got.ID); err != nil {
		t.Fatal(err)
	} else if diff := cmp.Diff(in, read); diff != "" {
		t.Errorf("Task after insert (-want +got):\n%s", diff)
	}

	done := in
	done.Status, done.StatusMessage = "completed", "indexed 3 files"
	done.Result = json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`)
	done.PollIntervalMs, done.TTLMs = 1000, 0
	done.UpdatedAt, done.EndedAt = at(7000), at(7000)
	// What UpdateTask does not own stays as inserted.
	changed := done
	changed.Tool, changed.ServerName, changed.CreatedAt = "other", "Other", at(99)
	if err := s.UpdateTask(ctx, changed); err != nil {
		t.Fatal(err)
	}
	read, err := s.TaskByToolCall(ctx, "rec-1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(done, read); diff != "" {
		t.Errorf("TaskByToolCall after update (-want +got):\n%s", diff)
	}
	if !read.Ended() {
		t.Error("Ended() = false for a task with EndedAt")
	}

	// A task run outside a conversation.
	loose, err := s.InsertTask(ctx, Task{ServerID: "fs", TaskID: "t-2", Status: "working"})
	if err != nil {
		t.Fatal(err)
	}
	if loose.CreatedAt.IsZero() || loose.UpdatedAt.IsZero() {
		t.Errorf("zero times not set to now: %+v", loose)
	}
	if read, err := s.Task(ctx, loose.ID); err != nil || read.ConversationID != "" || read.Result != nil || read.Ended() {
		t.Errorf("loose task = %+v, %v", read, err)
	}

	for name, err := range map[string]error{
		"Task":           func() error { _, err := s.Task(ctx, "nope"); return err }(),
		"TaskByToolCall": func() error { _, err := s.TaskByToolCall(ctx, "nope"); return err }(),
		"TaskByToolCall empty": func() error {
			_, err := s.TaskByToolCall(ctx, "") // the loose task has none: it is not "the task of ''"
			return err
		}(),
		"UpdateTask": s.UpdateTask(ctx, Task{ID: "nope", Status: "failed"}),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s of a missing task: %v; want ErrNotFound", name, err)
		}
	}
}

func TestTaskUniquePerServer(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	if _, err := s.InsertTask(ctx, Task{ServerID: "a", TaskID: "t", Status: "working"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.InsertTask(ctx, Task{ServerID: "a", TaskID: "t", Status: "working"}); !errors.Is(err, ErrDuplicateTask) {
		t.Errorf("second insert of a's task t: %v; want ErrDuplicateTask", err)
	}
	// Another server may use the same task ID.
	if _, err := s.InsertTask(ctx, Task{ServerID: "b", TaskID: "t", Status: "working"}); err != nil {
		t.Errorf("b's task t: %v", err)
	}
}

func TestTasksFilter(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c1, c2 := mustConversation(t, s, "one"), mustConversation(t, s, "two")
	add := func(taskID, conv string, created int64, ended bool) {
		t.Helper()
		task := Task{ServerID: "s", TaskID: taskID, ConversationID: conv, Status: "working", CreatedAt: at(created)}
		if ended {
			task.Status, task.EndedAt = "completed", at(created+1)
		}
		if _, err := s.InsertTask(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
	add("a", c1.ID, 1, true)
	add("b", c1.ID, 2, false)
	add("c", c2.ID, 3, false)
	add("d", "", 4, true)
	add("e", "", 5, false)

	for _, tc := range []struct {
		name string
		f    TaskFilter
		want []string
	}{
		{"all", TaskFilter{}, []string{"e", "d", "c", "b", "a"}},
		{"active", TaskFilter{Active: true}, []string{"e", "c", "b"}},
		{"conversation", TaskFilter{ConversationID: c1.ID}, []string{"b", "a"}},
		{"active in conversation", TaskFilter{Active: true, ConversationID: c1.ID}, []string{"b"}},
		{"limit", TaskFilter{Limit: 2}, []string{"e", "d"}},
		{"negative limit is the default", TaskFilter{Limit: -1}, []string{"e", "d", "c", "b", "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, err := s.Tasks(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, task := range list {
				got = append(got, task.TaskID)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Tasks(%+v) (-want +got):\n%s", tc.f, diff)
			}
		})
	}
}

func TestTasksLimitBounds(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxTaskLimit + 10 {
		if _, err := tx.Exec(`INSERT INTO tasks(id, server_id, task_id, status, created_at, updated_at) VALUES (?, 's', ?, 'working', ?, ?)`,
			fmt.Sprint(i), fmt.Sprint(i), i+1, i+1); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for limit, want := range map[int]int{0: DefaultTaskLimit, 5: 5, MaxTaskLimit + 5: MaxTaskLimit} {
		list, err := s.Tasks(ctx, TaskFilter{Limit: limit})
		if err != nil || len(list) != want {
			t.Errorf("Tasks(Limit: %d) = %d tasks, %v; want %d", limit, len(list), err, want)
		}
	}
}

// TestTasksGoWithTheirConversation: a task's result is its conversation's
// content, so deleting the conversation deletes it, as it deletes the
// tool-call audit; a task of no conversation stays.
func TestTasksGoWithTheirConversation(t *testing.T) {
	s, _ := openTemp(t, nil)
	ctx := context.Background()
	c := mustConversation(t, s, "x")
	in, err := s.InsertTask(ctx, Task{ServerID: "s", TaskID: "in", ConversationID: c.ID, Status: "working"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.InsertTask(ctx, Task{ServerID: "s", TaskID: "out", Status: "working"}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteConversation(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Task(ctx, in.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("task of a deleted conversation: %v; want ErrNotFound", err)
	}
	if err := s.UpdateTask(ctx, in); !errors.Is(err, ErrNotFound) {
		t.Errorf("updating a task of a deleted conversation: %v; want ErrNotFound", err)
	}
	if n := count(t, s, "tasks"); n != 1 {
		t.Errorf("tasks left = %d; want the one of no conversation", n)
	}
	// A task cannot name a conversation that does not exist.
	if _, err := s.InsertTask(ctx, Task{ServerID: "s", TaskID: "ghost", ConversationID: "nope", Status: "working"}); err == nil {
		t.Error("a task of a missing conversation was recorded")
	}
}

// TestMigrateAddsTasks opens a file of the schema before tasks and finds
// its data kept and tasks recordable.
func TestMigrateAddsTasks(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	const before = 5
	old, err := Open(ctx, path, &Options{TargetVersion: before})
	if err != nil {
		t.Fatal(err)
	}
	seed(t, old)
	if _, err := old.db.Exec("SELECT 1 FROM tasks"); err == nil {
		t.Fatalf("schema v%d already has tasks", before)
	}
	old.Close()

	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, err := s.SchemaVersion(ctx); err != nil || v != LatestVersion() {
		t.Fatalf("SchemaVersion = %d, %v; want %d", v, err, LatestVersion())
	}
	task, err := s.InsertTask(ctx, Task{ServerID: "fs", TaskID: "t", ToolCallID: "call_1", ConversationID: "c1", Status: "working"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Tasks(ctx, TaskFilter{Active: true, ConversationID: "c1"})
	if err != nil || len(got) != 1 || got[0].ID != task.ID {
		t.Errorf("Tasks after migration = %+v, %v", got, err)
	}
	if n := count(t, s, "tool_calls"); n != 1 {
		t.Errorf("tool_calls rows = %d after migration; want 1", n)
	}
}
