//go:build linux && (production || dev) && !bindings

package app

/*
#cgo linux pkg-config: gtk+-3.0
#cgo !webkit2_41 pkg-config: webkit2gtk-4.0
#cgo webkit2_41 pkg-config: webkit2gtk-4.1
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include <stdlib.h>
#include <string.h>

// Wails' own entry for a message from the page (its linux package exports
// it). Weak, so this package links on its own; sbg_install checks it is
// there.
extern void processBindingMessage(char *, char *) __attribute__((weak));
extern void frameGuardDone(int, int);
extern void frameGuardRefused(size_t);
extern int frameGuardNavigate(char *, char *, int);
extern int frameGuardHung(void);
extern int frameGuardGone(int);

static char *sbg_key = NULL;
static size_t sbg_key_len = 0;
static char *sbg_script = NULL;

// sbg_has_key compares in constant time: a frame learns nothing from how
// long a wrong key takes.
static int sbg_has_key(const char *msg, size_t len) {
	if (len < sbg_key_len) return 0;
	unsigned char d = 0;
	for (size_t i = 0; i < sbg_key_len; i++) d |= (unsigned char)(msg[i] ^ sbg_key[i]);
	return d == 0;
}

// sbg_is_view reports whether uri is a server's view (served at
// /mcp-view/): should one ever be the top frame, it gets no bindings.
static int sbg_is_view(const char *uri) {
	if (!uri) return 0;
	const char *p = strstr(uri, "://");
	if (!p) return 0;
	p = strchr(p + 3, '/');
	return p && strncmp(p, "/mcp-view/", 10) == 0;
}

static void sbg_on_message(WebKitUserContentManager *m, WebKitJavascriptResult *r, gpointer data) {
	WebKitWebView *wv = WEBKIT_WEB_VIEW(data);
	char *msg = jsc_value_to_string(webkit_javascript_result_get_js_value(r));
	if (!msg) return;
	size_t len = strlen(msg);
	const char *uri = webkit_web_view_get_uri(wv);
	if (sbg_has_key(msg, len) && !sbg_is_view(uri)) {
		char *u = g_strdup(uri ? uri : "");
		processBindingMessage(msg + sbg_key_len, u);
		g_free(u);
	} else {
		frameGuardRefused(len);
	}
	g_free(msg);
}

// sbg_on_policy vets every navigation of the page and its frames: a view
// could otherwise leave its Content-Security-Policy by navigating its own
// frame (to a page of its choosing, or to a URL answering 204 that carries
// data out). Go decides (frameGuardNavigate); new windows are refused.
static gboolean sbg_on_policy(WebKitWebView *wv, WebKitPolicyDecision *d, WebKitPolicyDecisionType type, gpointer unused) {
	if (type == WEBKIT_POLICY_DECISION_TYPE_RESPONSE) return FALSE;
	WebKitNavigationAction *a = webkit_navigation_policy_decision_get_navigation_action(WEBKIT_NAVIGATION_POLICY_DECISION(d));
	WebKitURIRequest *req = a ? webkit_navigation_action_get_request(a) : NULL;
	const char *target = req ? webkit_uri_request_get_uri(req) : NULL;
	const char *page = webkit_web_view_get_uri(wv);
	if (!frameGuardNavigate((char *)(target ? target : ""), (char *)(page ? page : ""), type == WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION)) {
		webkit_policy_decision_ignore(d);
		return TRUE;
	}
	return FALSE;
}

// A page that never yields (a view's script in an endless loop: WebKitGTK
// runs every frame of the window in one web process, on one thread)
// freezes the whole window. WebKit tells when its web process stops
// answering; if it still does not 2 s later, Go decides (frameGuardHung)
// whether to end the process, and the window reloads its page once it is
// gone (frameGuardGone also decides after a crash).
static guint sbg_hang_timer = 0;

static gboolean sbg_hang_check(gpointer data) {
	sbg_hang_timer = 0;
	WebKitWebView *wv = WEBKIT_WEB_VIEW(data);
	if (!webkit_web_view_get_is_web_process_responsive(wv) && frameGuardHung())
		webkit_web_view_terminate_web_process(wv);
	return G_SOURCE_REMOVE;
}

static void sbg_on_responsive(GObject *o, GParamSpec *p, gpointer unused) {
	WebKitWebView *wv = WEBKIT_WEB_VIEW(o);
	if (webkit_web_view_get_is_web_process_responsive(wv)) {
		if (sbg_hang_timer) { g_source_remove(sbg_hang_timer); sbg_hang_timer = 0; }
		return;
	}
	if (!sbg_hang_timer) sbg_hang_timer = g_timeout_add(2000, sbg_hang_check, wv);
}

static void sbg_on_gone(WebKitWebView *wv, WebKitWebProcessTerminationReason reason, gpointer unused) {
	if (frameGuardGone(reason == WEBKIT_WEB_PROCESS_TERMINATED_BY_API ? 0 : 1))
		webkit_web_view_reload(wv);
}

static GtkWidget *sbg_find_webview(GtkWidget *w) {
	if (WEBKIT_IS_WEB_VIEW(w)) return w;
	if (!GTK_IS_CONTAINER(w)) return NULL;
	GList *children = gtk_container_get_children(GTK_CONTAINER(w));
	GtkWidget *found = NULL;
	for (GList *l = children; l && !found; l = l->next) found = sbg_find_webview(GTK_WIDGET(l->data));
	g_list_free(children);
	return found;
}

// sbg_install runs on GTK's main thread: it finds the window's web view,
// blocks Wails' handler of the "external" messages, connects sbg_on_message
// in its place, and adds the script that gives the top frame the key.
static gboolean sbg_install(gpointer unused) {
	GtkWidget *wv = NULL;
	GList *tops = gtk_window_list_toplevels();
	for (GList *l = tops; l && !wv; l = l->next) wv = sbg_find_webview(GTK_WIDGET(l->data));
	g_list_free(tops);
	if (!wv) { frameGuardDone(1, 0); return G_SOURCE_REMOVE; }
	if (!processBindingMessage) { frameGuardDone(2, 0); return G_SOURCE_REMOVE; }
	WebKitUserContentManager *m = webkit_web_view_get_user_content_manager(WEBKIT_WEB_VIEW(wv));
	guint sig = g_signal_lookup("script-message-received", WEBKIT_TYPE_USER_CONTENT_MANAGER);
	GQuark detail = g_quark_from_string("external");
	int blocked = 0;
	gulong id;
	while ((id = g_signal_handler_find(m, G_SIGNAL_MATCH_ID | G_SIGNAL_MATCH_DETAIL | G_SIGNAL_MATCH_UNBLOCKED, sig, detail, NULL, NULL, NULL)) != 0) {
		g_signal_handler_block(m, id);
		blocked++;
	}
	if (blocked != 1) { frameGuardDone(3, blocked); return G_SOURCE_REMOVE; }
	WebKitUserScript *s = webkit_user_script_new(sbg_script, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, NULL, NULL);
	webkit_user_content_manager_add_script(m, s);
	webkit_user_script_unref(s);
	g_signal_connect(m, "script-message-received::external", G_CALLBACK(sbg_on_message), wv);
	g_signal_connect(wv, "decide-policy", G_CALLBACK(sbg_on_policy), NULL);
	g_signal_connect(wv, "notify::is-web-process-responsive", G_CALLBACK(sbg_on_responsive), NULL);
	g_signal_connect(wv, "web-process-terminated", G_CALLBACK(sbg_on_gone), NULL);
	frameGuardDone(0, blocked);
	return G_SOURCE_REMOVE;
}

static void sbg_schedule(char *key, char *script) {
	sbg_key = key;
	sbg_key_len = strlen(key);
	sbg_script = script;
	g_idle_add(sbg_install, NULL);
}
*/
import "C"

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// On Linux, WebKitGTK gives every frame of the page, a server's view in its
// sandboxed iframe included, the message handler Wails' bindings use
// (window.webkit.messageHandlers.external), and Wails checks the origin of
// the main frame's URI, not of the frame that sent the message. A view
// could call any bound method. So the window's handler is replaced: a
// script WebKit runs in the top frame only, before the page's own, wraps
// window.WailsInvoke to put a random key in front of every message, and
// only messages that start with the key reach Wails (without it). A frame
// cannot read the top frame's script (its origin differs), so it cannot
// learn the key; its messages are refused and counted.

var frameGuard struct {
	once sync.Once
	done chan struct{}
	err  error
	// refused counts frames' messages without the key; woken gets one
	// token per burst of them (never a goroutine per message: a frame can
	// post as fast as it likes), which notifyRefused passes on to onRefuse.
	refused  atomic.Int64
	lastSize atomic.Int64
	woken    chan struct{}
	onRefuse atomic.Pointer[func(n int64, size int)]
	// navAllowed says whether a frame may go to an https URL off the app's
	// origin (a view's declared frame origin); nil: never. onNavRefused
	// hears of each refused navigation.
	navAllowed   atomic.Pointer[func(uri string) bool]
	onNavRefused atomic.Pointer[func(uri string)]
	// hung decides whether to end a web process that stopped answering;
	// gone whether to reload the page after the process ended (ended: by
	// hung's decision; else it crashed). Both run on GTK's thread: they
	// must not block. nil: neither.
	hung atomic.Pointer[func() bool]
	gone atomic.Pointer[func(ended bool) bool]
}

// guardTimeout bounds the wait for GTK's main loop to run the install.
const guardTimeout = 10 * time.Second

// guardFrames puts the key in place, once; every later call returns the
// first one's result. It must run before the app's page is served (the
// asset Middleware calls it for "/"), so the page's first message carries
// the key.
func guardFrames() error {
	frameGuard.once.Do(func() {
		frameGuard.done = make(chan struct{})
		frameGuard.woken = make(chan struct{}, 1)
		go notifyRefused()
		key := make([]byte, 24)
		rand.Read(key)
		k := "sbk" + hex.EncodeToString(key) + ":"
		// WailsInvoke is made an accessor that ignores writes, so Wails'
		// ipc.js, which assigns its own later, keeps this one.
		script := fmt.Sprintf(`(() => {
  const h = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.external;
  if (!h || location.pathname.startsWith("/mcp-view/")) return;
  const post = h.postMessage.bind(h);
  const invoke = (m) => post(%q + m);
  Object.defineProperty(window, "WailsInvoke", { get: () => invoke, set: () => {}, configurable: false });
})();`, k)
		C.sbg_schedule(C.CString(k), C.CString(script)) // kept for the process's life
		select {
		case <-frameGuard.done:
		case <-time.After(guardTimeout):
			frameGuard.err = errors.New("the window's frame guard was not installed in time")
		}
	})
	return frameGuard.err
}

// framesGuarded reports whether a frame inside the window is kept from the
// app's bindings: here, whether guardFrames succeeded.
func framesGuarded() bool {
	if frameGuard.done == nil {
		return false
	}
	select {
	case <-frameGuard.done:
		return frameGuard.err == nil
	default:
		return false
	}
}

// canGuardFrames reports whether this build keeps frames from the
// bindings: this one does, once guardFrames has run, when its responses
// keep their headers (a view's policy is one).
func canGuardFrames() bool { return webkitKeepsHeaders }

// onFrameRefused sets what is called (off GTK's thread) for a refused
// message.
func onFrameRefused(f func(n int64, size int)) { frameGuard.onRefuse.Store(&f) }

//export frameGuardDone
func frameGuardDone(code, blocked C.int) {
	switch code {
	case 0:
	case 1:
		frameGuard.err = errors.New("the window's web view was not found")
	case 2:
		frameGuard.err = errors.New("this build's Wails has no binding entry to forward to")
	default:
		frameGuard.err = fmt.Errorf("expected one Wails message handler to replace, found %d", int(blocked))
	}
	close(frameGuard.done)
}

//export frameGuardRefused
func frameGuardRefused(size C.size_t) {
	frameGuard.refused.Add(1)
	frameGuard.lastSize.Store(int64(size))
	select {
	case frameGuard.woken <- struct{}{}:
	default: // already woken: this one is counted
	}
}

// notifyRefused passes refusals on to onRefuse, one call per wake-up with
// the count so far, for the process's life.
func notifyRefused() {
	for range frameGuard.woken {
		if f := frameGuard.onRefuse.Load(); f != nil {
			(*f)(frameGuard.refused.Load(), int(frameGuard.lastSize.Load()))
		}
	}
}

// onFrameNavigation sets how a frame's navigation off the app's origin is
// vetted (allowed) and who hears of a refused one (refused, called on
// GTK's thread: it must not block).
func onFrameNavigation(allowed func(uri string) bool, refused func(uri string)) {
	frameGuard.navAllowed.Store(&allowed)
	frameGuard.onNavRefused.Store(&refused)
}

//export frameGuardNavigate
func frameGuardNavigate(target, page *C.char, newWindow C.int) C.int {
	t, p := C.GoString(target), C.GoString(page)
	ok := newWindow == 0 && navigationAllowed(t, p, func(uri string) bool {
		f := frameGuard.navAllowed.Load()
		return f != nil && (*f)(uri)
	})
	if !ok {
		if f := frameGuard.onNavRefused.Load(); f != nil {
			(*f)(t)
		}
		return 0
	}
	return 1
}

// onPageHang sets how a window whose page stopped answering is recovered
// (see sbg_hang_check): hung says whether to end the page's process, gone
// whether to reload the page after it ended (ended) or crashed. Both are
// called on GTK's thread and must not block.
func onPageHang(hung func() bool, gone func(ended bool) bool) {
	frameGuard.hung.Store(&hung)
	frameGuard.gone.Store(&gone)
}

//export frameGuardHung
func frameGuardHung() C.int {
	if f := frameGuard.hung.Load(); f != nil && (*f)() {
		return 1
	}
	return 0
}

//export frameGuardGone
func frameGuardGone(crashed C.int) C.int {
	if f := frameGuard.gone.Load(); f != nil && (*f)(crashed == 0) {
		return 1
	}
	return 0
}
