//go:build windows

package mcpconn

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// osEnv are the variables a server gets on Windows besides baseEnv: what
// cmd.exe, node and Python need to start and to find the user's folders.
var osEnv = []string{
	"SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT", "OS",
	"APPDATA", "LOCALAPPDATA", "USERPROFILE", "HOMEDRIVE", "HOMEPATH", "USERNAME", "USERDOMAIN",
	"ProgramData", "ALLUSERSPROFILE", "PUBLIC",
	"ProgramFiles", "ProgramFiles(x86)", "ProgramW6432",
	"CommonProgramFiles", "CommonProgramFiles(x86)", "CommonProgramW6432",
	"NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "PROCESSOR_IDENTIFIER",
}

// envFoldCase is whether variable names match in any case: they do on
// Windows.
const envFoldCase = true

// setProcessGroup starts the child without a console window (the app is a
// GUI app; a console server would flash one) in a new process group.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		HideWindow:    true,
		CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW,
	}
}

// A processGroup is a job object holding the child, so the whole tree
// (npx.cmd, node and whatever node spawns) can be ended at once. Windows has
// no SIGTERM for a process without a console: terminate does nothing and the
// tree is killed after the grace period.
type processGroup struct {
	job  windows.Handle
	once *sync.Once // the handle is closed once
}

func newProcessGroup(cmd *exec.Cmd) processGroup {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return processGroup{}
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return processGroup{}
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return processGroup{}
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return processGroup{}
	}
	return processGroup{job: job, once: new(sync.Once)}
}

func (g processGroup) terminate() {}

func (g processGroup) kill() {
	if g.job != 0 {
		_ = windows.TerminateJobObject(g.job, 1)
	}
}

// cleanup kills what is left of the tree and releases the job, once.
func (g processGroup) cleanup(time.Duration) {
	if g.job == 0 {
		return
	}
	g.once.Do(func() {
		_ = windows.TerminateJobObject(g.job, 1)
		windows.CloseHandle(g.job)
	})
}

// lookPath finds file in the directories of pathList, trying the extensions
// in PATHEXT as cmd.exe does, so "npx" finds "npx.cmd" (lookPathExt).
func lookPath(file, pathList string) (string, bool) {
	return lookPathExt(file, filepath.SplitList(pathList), os.Getenv("PATHEXT"))
}
