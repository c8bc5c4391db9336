// Package toolsearchtest makes realistic tool sets for tests and
// benchmarks of tool search: ten servers of thirty tools each, named,
// described and with argument schemas the way real MCP servers (GitHub's,
// Jira's, Slack's, Kubernetes', ...) write them, including the overlaps
// that make search hard (issues on GitHub, Jira and Linear; reminders on
// Slack and Google Calendar; messages on Slack and Gmail).
package toolsearchtest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A Tool is one generated tool.
type Tool struct {
	ServerID   string
	ServerName string
	// Name is the server's own name for it (list_issues); the exposed
	// name is ServerID + "__" + Name.
	Name        string
	Description string
	InputSchema json.RawMessage
}

// Exposed is the name models call it by.
func (t Tool) Exposed() string { return t.ServerID + "__" + t.Name }

type param struct{ name, typ, desc string }

type object struct {
	singular, plural string
	// id is the argument that names one.
	id param
	// fields are what it holds; the first two filter lists.
	fields []param
	// about is a sentence on what it is.
	about string
}

type server struct {
	id, name string
	// in is where its objects live ("a GitHub repository"), and scope the
	// arguments that say which.
	in    string
	scope []param
	objs  []object
}

func p(name, typ, desc string) param { return param{name, typ, desc} }

var servers = []server{
	{"github", "GitHub", "a GitHub repository", []param{p("owner", "string", "Repository owner (user or organization)"), p("repo", "string", "Repository name")}, []object{
		{"issue", "issues", p("issue_number", "integer", "The issue number"), []param{p("state", "string", "open, closed or all"), p("labels", "array", "Label names"), p("title", "string", "Issue title"), p("body", "string", "Issue body in Markdown")}, "Issues track bugs, tasks and feature requests."},
		{"pull request", "pull requests", p("pull_number", "integer", "The pull request number"), []param{p("state", "string", "open, closed or all"), p("base", "string", "Base branch"), p("head", "string", "Head branch"), p("title", "string", "Pull request title")}, "A pull request proposes merging the changes of a head branch into a base branch."},
		{"branch", "branches", p("branch", "string", "Branch name"), []param{p("protected", "boolean", "Only protected branches"), p("from_branch", "string", "Branch to start from")}, "Branches hold lines of development."},
		{"commit", "commits", p("sha", "string", "Commit SHA"), []param{p("author", "string", "Author login or email"), p("path", "string", "Only commits touching this file path"), p("since", "string", "ISO 8601 date")}, "Commits record changes to the repository's files."},
		{"release", "releases", p("tag", "string", "Release tag name"), []param{p("draft", "boolean", "Whether it is a draft"), p("prerelease", "boolean", "Whether it is a prerelease"), p("notes", "string", "Release notes")}, "Releases package software with notes and binary assets."},
		{"workflow run", "workflow runs", p("run_id", "integer", "The workflow run ID"), []param{p("status", "string", "queued, in_progress or completed"), p("event", "string", "Event that triggered it (push, pull_request, ...)")}, "Workflow runs are executions of GitHub Actions workflows."},
	}},
	{"jira", "Jira", "a Jira project", []param{p("project_key", "string", "Project key, such as PROJ")}, []object{
		{"issue", "issues", p("issue_key", "string", "Issue key, such as PROJ-123"), []param{p("status", "string", "Workflow status"), p("assignee", "string", "Assignee account ID"), p("priority", "string", "Highest, High, Medium, Low or Lowest"), p("summary", "string", "One-line summary")}, "Jira issues are stories, bugs, tasks and epics moved through a workflow."},
		{"sprint", "sprints", p("sprint_id", "integer", "Sprint ID"), []param{p("state", "string", "future, active or closed"), p("goal", "string", "Sprint goal"), p("start_date", "string", "ISO 8601 date")}, "Sprints are time boxes of a Scrum board."},
		{"comment", "comments", p("comment_id", "string", "Comment ID"), []param{p("issue_key", "string", "The issue commented on"), p("body", "string", "Comment text in Atlassian Document Format")}, "Comments discuss an issue."},
		{"worklog", "worklogs", p("worklog_id", "string", "Worklog ID"), []param{p("time_spent", "string", "Time spent, such as 3h 20m"), p("started", "string", "When the work started")}, "Worklogs record time spent on an issue."},
		{"version", "versions", p("version_id", "string", "Version ID"), []param{p("released", "boolean", "Whether it is released"), p("release_date", "string", "Release date")}, "Versions (fix versions) group the issues shipped together."},
		{"component", "components", p("component_id", "string", "Component ID"), []param{p("lead", "string", "Component lead account ID"), p("name", "string", "Component name")}, "Components split a project into parts with their own leads."},
	}},
	{"slack", "Slack", "a Slack workspace", []param{p("team_id", "string", "Workspace ID; the default workspace if not given")}, []object{
		{"channel", "channels", p("channel_id", "string", "Channel ID"), []param{p("is_private", "boolean", "Private channels only"), p("name", "string", "Channel name without #"), p("topic", "string", "Channel topic")}, "Channels are where conversations happen."},
		{"message", "messages", p("ts", "string", "Message timestamp"), []param{p("channel_id", "string", "Channel the message is in"), p("text", "string", "Message text in mrkdwn"), p("thread_ts", "string", "Reply in this thread")}, "Messages are posts in channels and threads."},
		{"user", "users", p("user_id", "string", "User ID"), []param{p("email", "string", "Email address"), p("display_name", "string", "Display name")}, "Users are the members of the workspace."},
		{"reminder", "reminders", p("reminder_id", "string", "Reminder ID"), []param{p("text", "string", "What to be reminded of"), p("time", "string", "When: a Unix timestamp or natural language such as in 15 minutes")}, "Slackbot sends reminders at the time set."},
		{"user group", "user groups", p("usergroup_id", "string", "User group ID"), []param{p("handle", "string", "Mention handle"), p("users", "array", "Member user IDs")}, "User groups are mentionable teams such as @oncall."},
		{"bookmark", "bookmarks", p("bookmark_id", "string", "Bookmark ID"), []param{p("title", "string", "Bookmark title"), p("link", "string", "URL")}, "Bookmarks are links pinned at the top of a channel."},
	}},
	{"postgres", "PostgreSQL", "a PostgreSQL database", []param{p("database", "string", "Database name; the connection's default if not given")}, []object{
		{"table", "tables", p("table", "string", "Table name"), []param{p("schema", "string", "Schema name, public by default"), p("columns", "array", "Column definitions: name, type, constraints")}, "Tables hold rows of typed columns."},
		{"index", "indexes", p("index", "string", "Index name"), []param{p("table", "string", "Table the index is on"), p("unique", "boolean", "Whether values must be unique"), p("method", "string", "btree, hash, gin or gist")}, "Indexes speed up queries on a table's columns."},
		{"view", "views", p("view", "string", "View name"), []param{p("schema", "string", "Schema name"), p("definition", "string", "The SELECT query of the view")}, "Views are named queries that read like tables."},
		{"role", "roles", p("role", "string", "Role name"), []param{p("login", "boolean", "Whether the role can log in"), p("superuser", "boolean", "Whether the role is a superuser")}, "Roles own objects and hold privileges."},
		{"schema", "schemas", p("schema", "string", "Schema name"), []param{p("owner", "string", "Owning role")}, "Schemas are namespaces of tables, views and functions."},
		{"extension", "extensions", p("extension", "string", "Extension name, such as pg_trgm"), []param{p("version", "string", "Extension version")}, "Extensions add types, functions and operators (PostGIS, pgvector, ...)."},
	}},
	{"k8s", "Kubernetes", "a Kubernetes namespace", []param{p("namespace", "string", "Namespace; default if not given"), p("context", "string", "kubeconfig context")}, []object{
		{"pod", "pods", p("name", "string", "Pod name"), []param{p("label_selector", "string", "Label selector such as app=web"), p("phase", "string", "Pending, Running, Succeeded or Failed")}, "Pods run one or more containers."},
		{"deployment", "deployments", p("name", "string", "Deployment name"), []param{p("replicas", "integer", "Desired replica count"), p("image", "string", "Container image")}, "Deployments roll out and scale replicated pods."},
		{"service", "services", p("name", "string", "Service name"), []param{p("type", "string", "ClusterIP, NodePort or LoadBalancer"), p("ports", "array", "Ports to expose")}, "Services give pods a stable network address."},
		{"config map", "config maps", p("name", "string", "ConfigMap name"), []param{p("data", "object", "Key-value configuration data")}, "ConfigMaps hold configuration for pods."},
		{"secret", "secrets", p("name", "string", "Secret name"), []param{p("type", "string", "Secret type, such as kubernetes.io/tls"), p("data", "object", "Base64 values by key")}, "Secrets hold credentials, tokens and keys."},
		{"cron job", "cron jobs", p("name", "string", "CronJob name"), []param{p("schedule", "string", "Cron schedule such as 0 3 * * *"), p("suspend", "boolean", "Whether runs are suspended")}, "CronJobs run jobs on a schedule."},
	}},
	{"gcal", "Google Calendar", "a Google Calendar", []param{p("calendar_id", "string", "Calendar ID; primary if not given")}, []object{
		{"event", "events", p("event_id", "string", "Event ID"), []param{p("time_min", "string", "Start of the range, RFC 3339"), p("time_max", "string", "End of the range, RFC 3339"), p("summary", "string", "Event title"), p("attendees", "array", "Attendee email addresses")}, "Events are meetings and appointments with a start and an end."},
		{"calendar", "calendars", p("calendar_id", "string", "Calendar ID"), []param{p("summary", "string", "Calendar name"), p("time_zone", "string", "IANA time zone")}, "Calendars group events and share them."},
		{"reminder", "reminders", p("reminder_id", "string", "Reminder ID"), []param{p("minutes", "integer", "Minutes before the event"), p("method", "string", "email or popup")}, "Reminders notify attendees before an event starts."},
		{"access rule", "access rules", p("rule_id", "string", "ACL rule ID"), []param{p("role", "string", "reader, writer or owner"), p("scope", "string", "Who: a user, group or domain")}, "Access rules say who may see or change a calendar."},
		{"working location", "working locations", p("location_id", "string", "Working location ID"), []param{p("date", "string", "Day, YYYY-MM-DD"), p("kind", "string", "home, office or custom")}, "Working locations say where the user works on a day."},
		{"out of office block", "out of office blocks", p("block_id", "string", "Block ID"), []param{p("start", "string", "Start, RFC 3339"), p("end", "string", "End, RFC 3339"), p("decline_message", "string", "Message sent to declined invitations")}, "Out of office blocks decline meetings while the user is away."},
	}},
	{"gmail", "Gmail", "the user's Gmail mailbox", []param{p("user_id", "string", "me for the signed-in user")}, []object{
		{"email message", "email messages", p("message_id", "string", "Message ID"), []param{p("query", "string", "Gmail search query, such as from:alice has:attachment"), p("label_ids", "array", "Only messages with these labels")}, "Email messages are received and sent mail."},
		{"draft", "drafts", p("draft_id", "string", "Draft ID"), []param{p("to", "array", "Recipient addresses"), p("subject", "string", "Subject line"), p("body", "string", "Plain-text body")}, "Drafts are unsent messages."},
		{"label", "labels", p("label_id", "string", "Label ID"), []param{p("name", "string", "Label name"), p("color", "string", "Background color, hex")}, "Labels organize mail like folders."},
		{"thread", "threads", p("thread_id", "string", "Thread ID"), []param{p("query", "string", "Gmail search query")}, "Threads are conversations of messages and their replies."},
		{"filter", "filters", p("filter_id", "string", "Filter ID"), []param{p("criteria", "object", "Which mail: from, to, subject, has the words"), p("action", "object", "What to do: add labels, archive, forward")}, "Filters act on incoming mail automatically."},
		{"forwarding address", "forwarding addresses", p("forwarding_email", "string", "The address to forward to"), []param{p("verification_status", "string", "accepted or pending")}, "Forwarding addresses receive copies of incoming mail."},
	}},
	{"notion", "Notion", "a Notion workspace", []param{}, []object{
		{"page", "pages", p("page_id", "string", "Page ID"), []param{p("parent_id", "string", "Parent page or database ID"), p("title", "string", "Page title")}, "Pages hold blocks of content and can nest."},
		{"database", "databases", p("database_id", "string", "Database ID"), []param{p("title", "string", "Database title"), p("properties", "object", "Property schema: name to type")}, "Databases are collections of pages with typed properties."},
		{"block", "blocks", p("block_id", "string", "Block ID"), []param{p("type", "string", "paragraph, heading_1, to_do, code, ..."), p("rich_text", "array", "The block's text")}, "Blocks are the paragraphs, headings, lists and embeds of a page."},
		{"page comment", "page comments", p("comment_id", "string", "Comment ID"), []param{p("discussion_id", "string", "Discussion thread ID"), p("rich_text", "array", "Comment text")}, "Comments discuss a page or a block."},
		{"workspace member", "workspace members", p("user_id", "string", "User ID"), []param{p("email", "string", "Email address"), p("role", "string", "owner, member or guest")}, "Members and guests have access to the workspace."},
		{"template", "templates", p("template_id", "string", "Template ID"), []param{p("database_id", "string", "Database the template belongs to"), p("title", "string", "Template name")}, "Templates prefill new pages of a database."},
	}},
	{"stripe", "Stripe", "the Stripe account", []param{p("stripe_account", "string", "Connected account ID, for Connect platforms")}, []object{
		{"customer", "customers", p("customer_id", "string", "Customer ID, cus_..."), []param{p("email", "string", "Customer email"), p("name", "string", "Customer name")}, "Customers are the people and companies that pay."},
		{"invoice", "invoices", p("invoice_id", "string", "Invoice ID, in_..."), []param{p("status", "string", "draft, open, paid, uncollectible or void"), p("customer_id", "string", "Customer ID"), p("due_date", "integer", "Unix timestamp")}, "Invoices are statements of amounts owed by a customer."},
		{"subscription", "subscriptions", p("subscription_id", "string", "Subscription ID, sub_..."), []param{p("price_id", "string", "Price ID"), p("status", "string", "active, past_due, canceled, ...")}, "Subscriptions charge a customer on a recurring basis."},
		{"product", "products", p("product_id", "string", "Product ID, prod_..."), []param{p("active", "boolean", "Whether it can be bought"), p("name", "string", "Product name")}, "Products are the goods and services sold."},
		{"refund", "refunds", p("refund_id", "string", "Refund ID, re_..."), []param{p("charge", "string", "Charge ID to refund"), p("amount", "integer", "Amount in the smallest currency unit")}, "Refunds return money from a charge to the customer."},
		{"payment link", "payment links", p("payment_link_id", "string", "Payment link ID, plink_..."), []param{p("price_id", "string", "Price ID"), p("quantity", "integer", "Quantity")}, "Payment links are hosted checkout pages to share."},
	}},
	{"linear", "Linear", "a Linear team", []param{p("team_id", "string", "Team ID or key")}, []object{
		{"issue", "issues", p("issue_id", "string", "Issue ID or identifier such as ENG-42"), []param{p("state", "string", "Workflow state name"), p("assignee_id", "string", "Assignee user ID"), p("priority", "integer", "0 none, 1 urgent ... 4 low"), p("title", "string", "Issue title")}, "Linear issues are units of work on a team's board."},
		{"project", "projects", p("project_id", "string", "Project ID"), []param{p("lead_id", "string", "Project lead user ID"), p("target_date", "string", "Target date, YYYY-MM-DD")}, "Projects group issues toward a goal with a target date."},
		{"cycle", "cycles", p("cycle_id", "string", "Cycle ID"), []param{p("number", "integer", "Cycle number"), p("starts_at", "string", "Start date")}, "Cycles are a team's repeating iterations."},
		{"issue comment", "issue comments", p("comment_id", "string", "Comment ID"), []param{p("issue_id", "string", "The issue commented on"), p("body", "string", "Comment in Markdown")}, "Comments discuss a Linear issue."},
		{"issue label", "issue labels", p("label_id", "string", "Label ID"), []param{p("name", "string", "Label name"), p("color", "string", "Hex color")}, "Labels categorize issues across a team."},
		{"document", "documents", p("document_id", "string", "Document ID"), []param{p("project_id", "string", "Project the document belongs to"), p("content", "string", "Document content in Markdown")}, "Documents hold specs and notes next to a project's issues."},
	}},
}

// Catalog returns the 300 tools of ten servers, in a fixed order (server
// by server), the same on every call.
func Catalog() []Tool {
	var out []Tool
	for _, s := range servers {
		for _, o := range s.objs {
			out = append(out, tools(s, o)...)
		}
	}
	return out
}

func snake(s string) string { return strings.ReplaceAll(s, " ", "_") }

// tools are the five tools of one object: list, get, create, update,
// delete.
func tools(s server, o object) []Tool {
	f := o.fields
	names := func(ps []param) string {
		var n []string
		for _, p := range ps {
			n = append(n, p.name)
		}
		switch len(n) {
		case 0:
			return ""
		case 1:
			return n[0]
		}
		return strings.Join(n[:len(n)-1], ", ") + " and " + n[len(n)-1]
	}
	page := []param{p("page", "integer", "Page number, from 1"), p("per_page", "integer", "Results per page, at most 100")}
	with := func(ps ...[]param) []param {
		out := append([]param{}, s.scope...)
		for _, x := range ps {
			out = append(out, x...)
		}
		return out
	}
	first := f[:min(2, len(f))]
	return []Tool{
		mk(s, "list_"+snake(o.plural),
			fmt.Sprintf("List the %s of %s, newest first. Filter by %s; results are paginated with page and per_page. Returns each one's %s and %s. %s", o.plural, s.in, names(first), o.id.name, names(first), o.about),
			with(first, page), nil),
		mk(s, "get_"+snake(o.singular),
			fmt.Sprintf("Get one %s of %s by its %s, with all its details: %s. %s", o.singular, s.in, o.id.name, names(f), o.about),
			with([]param{o.id}), []string{o.id.name}),
		mk(s, "create_"+snake(o.singular),
			fmt.Sprintf("Create a new %s in %s from %s. Returns the new %s with its %s.", o.singular, s.in, names(f), o.singular, o.id.name),
			with(f), []string{f[0].name}),
		mk(s, "update_"+snake(o.singular),
			fmt.Sprintf("Update an existing %s of %s: change its %s. Fields not given keep their values.", o.singular, s.in, names(f)),
			with([]param{o.id}, f), []string{o.id.name}),
		mk(s, "delete_"+snake(o.singular),
			fmt.Sprintf("Delete a %s from %s by its %s. This cannot be undone.", o.singular, s.in, o.id.name),
			with([]param{o.id}), []string{o.id.name}),
	}
}

func mk(s server, name, desc string, params []param, required []string) Tool {
	type prop struct {
		Type        string            `json:"type"`
		Description string            `json:"description"`
		Items       map[string]string `json:"items,omitempty"`
	}
	props := map[string]prop{}
	var order []string
	for _, p := range params {
		if _, dup := props[p.name]; dup {
			continue
		}
		pr := prop{Type: p.typ, Description: p.desc}
		if p.typ == "array" {
			pr.Items = map[string]string{"type": "string"}
		}
		props[p.name] = pr
		order = append(order, p.name)
	}
	// Properties in the order given, as servers write them.
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i, n := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		v, _ := json.Marshal(props[n])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteString("}")
	if len(required) > 0 {
		r, _ := json.Marshal(required)
		b.WriteString(`,"required":`)
		b.Write(r)
	}
	b.WriteString(`,"additionalProperties":false}`)
	return Tool{ServerID: s.id, ServerName: s.name, Name: name, Description: desc, InputSchema: json.RawMessage(b.String())}
}

// QueryFor is what a model looking for t would search with: the first
// words of its description (at most n, skipping those of one or two letters), as a scripted
// model takes them.
func QueryFor(t Tool, n int) string {
	var words []string
	for _, w := range strings.FieldsFunc(t.Description, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
	}) {
		if len(w) >= 3 && len(words) < n {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}
