package app

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/wailsapp/wails/v2/pkg/options"
)

// notifyRunning asks the running instance (Wails' single-instance D-Bus
// service on Linux) to raise its window. It reports whether that worked.
func notifyRunning(uniqueID string) bool {
	if runtime.GOOS != "linux" || os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		return false
	}
	id := "wails_app_" + strings.NewReplacer("-", "_", ".", "_").Replace(uniqueID)
	name := "org." + id + ".SingleInstance"
	path := dbus.ObjectPath("/org/" + id + "/SingleInstance")
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false
	}
	defer conn.Close()
	wd, _ := os.Getwd()
	msg, _ := json.Marshal(options.SecondInstanceData{Args: os.Args[1:], WorkingDirectory: wd})
	return conn.Object(name, path).Call(name+".SendMessage", 0, string(msg)).Err == nil
}
