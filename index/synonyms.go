package index

import (
	"strings"
	"sync"
)

// Synonyms and abbreviations of tool land. A query word also matches the
// other members of its groups, at the group's weight (the word itself counts
// 1). "same" groups are spellings, abbreviations and true equivalents;
// "near" groups are words a user says for the same action or thing.
// Entries are separated by "|" and may be phrases of several words. The
// table is general vocabulary of developer and productivity tools, written
// without looking at any evaluation query.
const (
	same = iota // spellings, abbreviations, equivalents
	near        // other words for the same action or thing
)

// synonymWeight is the weight of each kind of group.
var synonymWeight = [...]float64{same: 0.8, near: 0.5}

// sameWeight is the weight of a compound's parts and other near-spellings.
const sameWeight = 0.8

var synonymTable = []struct {
	kind  int
	group string
}{
	// Actions.
	{near, "create|new|add|make|generate|insert|build|init|initialize|set up"},
	{near, "delete|remove|rm|del|erase|destroy|drop|purge|discard|trash|unlink|wipe"},
	{near, "list|ls|enumerate|show|browse"},
	{near, "get|fetch|retrieve|read|obtain|load|lookup|look up|show|view|display"},
	{near, "search|find|query|lookup|look up|locate|seek|discover|look for"},
	{near, "update|edit|modify|change|alter|patch|adjust|amend|revise|set|rename|tweak"},
	{near, "write|save|store|persist|put|record|keep|remember"},
	{near, "send|post|publish|broadcast|notify|message|announce|ping"},
	{near, "run|execute|exec|invoke|call|trigger|start|launch|fire|perform"},
	{near, "start|begin|launch|open|spawn|boot"},
	{near, "stop|end|halt|terminate|kill|quit|abort|cancel|close|finish|shutdown|shut down|exit"},
	{near, "navigate|go to|goto|visit|open|browse|load"},
	{near, "click|tap|press"},
	{near, "type|fill|enter|input|write"},
	{near, "select|choose|pick|option|dropdown"},
	{near, "upload|attach|import|ingest"},
	{near, "download|export|dump|save"},
	{near, "copy|cp|duplicate|clone|replicate"},
	{near, "move|mv|relocate|transfer|rename|drag"},
	{near, "compare|diff|difference|changes"},
	{near, "check|verify|validate|test|lint|audit|status|health|valid"},
	{near, "convert|transform|translate|export"},
	{near, "summarize|summarise|summary|tldr|digest|overview|abstract"},
	{near, "analyze|analyse|analysis|analytics|inspect|examine|evaluate|assess|diagnose|investigate"},
	{near, "calculate|calc|compute|evaluate|math|arithmetic"},
	{near, "count|number|total|tally"},
	{near, "sort|order|rank|arrange"},
	{near, "filter|narrow|match|matching"},
	{near, "schedule|plan|book|reserve|arrange|calendar"},
	{near, "monitor|watch|observe|track|follow"},
	{near, "wait|await|sleep|pause|delay"},
	{near, "undo|revert|rollback|roll back|reset|restore"},
	{near, "merge|combine|join|concatenate|concat|squash"},
	{near, "split|divide|separate|chunk"},
	{near, "replace|substitute|swap|overwrite"},
	{near, "subscribe|follow|watch"},
	{near, "unsubscribe|unfollow|unwatch|mute"},
	{near, "approve|accept|confirm|allow|grant"},
	{near, "reject|decline|deny|refuse"},
	{near, "assign|allocate|delegate"},
	{near, "reply|respond|answer|response"},
	{near, "comment|note|remark|annotate|annotation"},
	{near, "deploy|release|ship|publish|rollout|roll out|promote"},
	{near, "install|setup|set up|add"},
	{near, "uninstall|remove|delete"},
	{near, "scroll|swipe|fling"},
	{near, "hover|mouseover|mouse over"},
	{near, "login|log in|signin|sign in|authenticate|logon"},
	{near, "logout|log out|signout|sign out"},
	{near, "capture|screenshot|screen shot|snapshot|screencap|grab"},
	{near, "emulate|simulate|emulation|simulation"},
	{near, "extract|scrape|parse|harvest"},
	{near, "crawl|spider|scrape"},
	{near, "render|draw|plot|visualize|visualise|chart|graph|paint"},
	{near, "resize|scale|shrink|enlarge"},
	{near, "sync|synchronize|synchronise|refresh|reconcile"},
	{near, "archive|unarchive|hide|shelve"},
	{near, "lock|unlock|protect"},
	{near, "encode|decode|encrypt|decrypt|hash|checksum"},
	{near, "invite|onboard"},

	// Software, code hosting, operations.
	{same, "repo|repository|repos|repositories"},
	{same, "dir|directory|folder|directories|folders|dirs"},
	{same, "fs|filesystem|file system"},
	{same, "pr|pull request|merge request|mr|prs|mrs"},
	{same, "k8s|kubernetes|kube|kubectl"},
	{same, "db|database|databases|dbs"},
	{same, "postgres|postgresql|psql|pg"},
	{same, "js|javascript|ecmascript|nodejs"},
	{same, "ts|typescript"},
	{same, "py|python"},
	{same, "env|environment|environments|envs"},
	{same, "config|configuration|cfg|conf|settings|preferences|options"},
	{same, "msg|message|messages|msgs"},
	{same, "email|mail|e-mail|emails|inbox"},
	{same, "img|image|picture|photo|pic|images|photos|pictures"},
	{same, "doc|docs|documentation|document|documents"},
	{same, "id|ids|identifier|identifiers|uuid|gid"},
	{same, "info|information|details|metadata|meta|properties|attributes|stats"},
	{same, "app|application|apps|applications"},
	{same, "fn|func|function|functions|method"},
	{same, "var|vars|variable|variables"},
	{same, "param|params|parameter|parameters|arg|args|argument|arguments"},
	{same, "auth|authentication|authorization|oauth"},
	{same, "ci|continuous integration|pipeline|pipelines|workflow|build"},
	{same, "vuln|vulnerability|vulnerabilities|vulns|cve|cves|security advisory|advisories"},
	{same, "license|licence|licenses|licensing"},
	{same, "pkg|package|packages|library|lib|libraries|dependency|dependencies|dep|deps|module|artifact"},
	{same, "version|versions|release|releases"},
	{same, "url|link|uri|href|links|urls"},
	{same, "web|website|site|webpage|web page|page|internet|online"},
	{same, "tab|page|window"},
	{same, "element|selector|component|widget"},
	{same, "err|error|errors|exception|exceptions|crash|failure|fault"},
	{same, "perf|performance|speed|latency"},
	{same, "stat|stats|statistics|metric|metrics|measurement"},
	{same, "incident|incidents|outage|outages|alert|alerts|alarm"},
	{same, "log|logs|logging|log entries"},
	{same, "trace|traces|tracing|span|spans"},
	{same, "downtime|maintenance|mute|silence"},
	{same, "feature flag|flag|flags"},
	{same, "issue|ticket|bug|defect|story|card"},
	{same, "task|todo|to-do|action item|chore"},
	{same, "commit|commits|changeset|revision"},
	{same, "cwd|working directory|current directory"},
	{same, "cmd|command|commands|shell|terminal|cli|bash"},
	{same, "process|processes|proc|pid"},
	{same, "container|containers|docker"},
	{same, "vm|virtual machine|instance|host"},
	{same, "secret|secrets|password|passwords|credential|credentials|token|api key|apikey"},
	{same, "sql|query|queries"},
	{same, "record|records|row|rows|entry|entries|item|items"},
	{same, "column|columns|field|fields|attribute"},
	{same, "schema|schemas|definition|describe"},
	{same, "table|tables|collection|collections"},
	{same, "spreadsheet|sheet|sheets|excel|xlsx|workbook|worksheet|cell|cells|range"},
	{same, "slide|slides|presentation|ppt|pptx|powerpoint|deck"},
	{same, "docx|word document|ms word"},
	{same, "pdf|pdfs"},
	{same, "markdown|md"},
	{same, "html|markup|dom"},
	{same, "csv|comma separated"},
	{same, "text|string|plain text|txt"},
	{same, "content|contents|body|text"},
	{same, "size|length|bytes"},
	{same, "phone|mobile|device|android|ios|iphone|smartphone|tablet"},
	{same, "screen|display"},
	{same, "http|https|rest|api|endpoint|request"},
	{same, "gcp|google cloud|google cloud platform"},
	{same, "aws|amazon web services"},

	// People, organisations, communication.
	{same, "user|users|member|members|person|people|account|accounts|profile|contact|contacts"},
	{same, "team|teams|group|groups|org|organization|organisation|workspace|company"},
	{same, "channel|channels|room|rooms|conversation|conversations|chat|chats"},
	{same, "dm|direct message|private message"},
	{same, "thread|threads|replies"},
	{same, "reaction|reactions|emoji|react"},
	{same, "attachment|attachments"},
	{same, "draft|drafts|compose"},
	{same, "label|labels|tag|tags|category|categories"},

	// Time and calendars.
	{same, "event|events|meeting|meetings|appointment|appointments"},
	{same, "today|now|current|currently|latest|recent|newest"},
	{same, "date|time|datetime|timestamp|clock"},
	{same, "timezone|time zone|tz"},

	// Places.
	{same, "coordinates|coordinate|lat|lng|lon|latitude|longitude|location|position|gps|geo"},
	{same, "address|place|places|location|poi|point of interest"},
	{same, "geocode|geocoding|reverse geocode|reverse geocoding"},
	{same, "directions|route|routes|routing|navigation|drive|driving|travel|commute"},
	{same, "distance|distances"},
	{same, "nearby|near|around|close by|local|vicinity"},
	{same, "map|maps|mapping|cartography"},
	{same, "weather|forecast|temperature"},

	// Money and markets.
	{same, "stock|stocks|share|shares|equity|equities|ticker|symbol"},
	{same, "price|prices|cost|quote|quotes|rate|value"},
	{same, "crypto|cryptocurrency|cryptocurrencies|bitcoin|btc|ethereum|eth|coin|coins"},
	{same, "currency|currencies|exchange rate|fx|forex"},
	{same, "earnings|financials|income statement|balance sheet|revenue"},

	// Content and media.
	{same, "news|headlines|headline|articles|article|stories|story"},
	{same, "paper|papers|preprint|publication|publications|research|study"},
	{same, "chart|charts|graph|graphs|plot|plots|visualization|diagram"},
	{same, "diagram|diagrams|flowchart|flow chart|uml"},
	{same, "song|songs|music|audio|track|tracks|sound"},
	{same, "video|videos|clip|movie"},
	{same, "transcript|transcripts|subtitles|captions"},
	{same, "random|randomly|rand|shuffle"},
	{same, "number|numbers|num|integer|digit"},
	{same, "note|notes|memo|memos|knowledge|memory"},
	{same, "translate|translation"},
	{same, "icon|icons|glyph|glyphs"},
	{same, "domain|domains|whois|dns|registrar"},

	// Everyday words for what tools call by technical names.
	{near, "slow|slowness|sluggish|lag|laggy|fast|faster|speed up|performance|latency|load time"},
	{near, "license|gpl|lgpl|agpl|mit|apache|bsd|mpl|copyleft|open source|compatible|compatibility"},
	{near, "fact|facts|observation|observations|knowledge|memory|memories|remember|recall"},
	{near, "disk|local|drive|storage|filesystem|on disk"},
	{near, "cook|cooking|recipe|recipes|meal|meals|food|dish|dishes|dinner|lunch|breakfast|eat|cuisine"},
	{near, "weather|forecast|rain|raining|snow|wind|sunny|humidity|umbrella|temperature"},
	{near, "airport|station|hotel|restaurant|cafe|shop|store|museum|park|venue|landmark|place|poi"},
	{near, "duration|travel time|eta|distance|how far"},
	{near, "tomorrow|tonight|yesterday|next week|this week|weekend|morning|afternoon|evening|schedule|calendar|date"},
	{near, "percent|percentage|sum|product|average|mean|total|calculate|math|arithmetic|formula|equation"},
	{near, "translate|language|english|spanish|french|german|chinese|japanese"},
	{near, "trend|trending|popular|top|hot|viral"},
	{near, "notify|notification|alert|tell|inform|announce|message|post|ping"},
	{near, "broken|bug|failing|fails|failure|error|crash|wrong"},
	{near, "cheap|cheapest|price|cost|expensive|deal|budget"},
	{near, "star|bookmark|favorite|favourite|pin|save for later"},
	{near, "transcribe|transcription|speech to text|dictation|stt"},
	{near, "speak|say|read aloud|text to speech|tts|voice|narrate"},
	{near, "ocr|text recognition|read text from image"},
	{near, "zip|compress|compression|archive|gzip|tarball"},
	{near, "unzip|decompress|extract|unpack|untar"},
	{near, "backup|backups|snapshot|restore point"},
	{near, "share|sharing|permission|permissions|access|collaborator|invite"},
	{near, "buy|purchase|order|orders|checkout|cart|shop|shopping"},
	{same, "pay|payment|payments|invoice|invoices|charge|charges|refund|billing|subscription"},
	{same, "customer|customers|client|clients|lead|leads|deal|deals|crm|opportunity"},
	{same, "flight|flights|airline|airlines|airfare|plane"},
	{same, "hotel|hotels|lodging|accommodation|stay|booking"},
	{same, "movie|movies|film|films|tv show|series|episode"},
	{same, "tweet|tweets|social post|status update"},
	{near, "ssh|remote shell|remote server|terminal session"},
	{near, "cpu|memory usage|disk usage|resource usage|utilization"},
	{near, "cron|recurring|every day|daily|weekly|scheduled job|periodic"},
	{same, "webhook|webhooks|callback url|hook|hooks"},
	{near, "ip|ip address|geolocation|geoip"},
	{near, "shorten|short link|short url|url shortener"},
	{same, "qr|qr code|barcode"},
	{same, "color|colour|colors|colours|palette|hex"},
	{same, "font|fonts|typeface|typography"},
	{same, "avatar|profile picture|profile photo"},
	{near, "holiday|holidays|vacation|time off|leave|pto|out of office"},
	{near, "reminder|reminders|remind|alarm"},
	{near, "grammar|spelling|spell check|proofread|typo|typos"},
	{near, "print|printer|printing"},
	{same, "branch|branches|ref|refs"},
	{near, "review|code review|feedback|critique"},
	{near, "complete|completed|done|finish|finished|resolve|resolved|close"},
	{near, "optimize|optimise|optimization|improve|tune"},
	{near, "pause|suspend|hold|freeze"},
	{near, "resume|continue|unpause|unfreeze"},
	{same, "sitemap|site map"},
}

// synonymIndex maps a term, or a phrase of terms joined by a space, to the
// alternatives it also matches.
type synonymIndex map[string][]alternative

// alternative is one way to match a query word: one term or a phrase of
// several, with a weight in (0, 1].
type alternative struct {
	terms  []string
	weight float64
}

var (
	synonymsOnce sync.Once
	synonymsIdx  synonymIndex
	maxPhrase    int
)

// synonyms returns the table, stemmed like the index, built once.
func synonyms() synonymIndex {
	synonymsOnce.Do(buildSynonyms)
	return synonymsIdx
}

func buildSynonyms() {
	{
		synonymsIdx = make(synonymIndex)
		maxPhrase = 1
		for _, g := range synonymTable {
			var entries [][]string
			for _, e := range strings.Split(g.group, "|") {
				if ts := terms(e); len(ts) > 0 {
					entries = append(entries, ts)
					maxPhrase = max(maxPhrase, len(ts))
				}
			}
			for _, from := range entries {
				key := strings.Join(from, " ")
				for _, to := range entries {
					synonymsIdx.add(key, to, synonymWeight[g.kind])
				}
			}
		}
	}
}

// add records that key also matches the phrase to, keeping the highest
// weight when several groups relate the two.
func (s synonymIndex) add(key string, to []string, w float64) {
	if strings.Join(to, " ") == key {
		return
	}
	alts := s[key]
	for i, a := range alts {
		if slicesEqual(a.terms, to) {
			alts[i].weight = max(a.weight, w)
			return
		}
	}
	s[key] = append(alts, alternative{terms: to, weight: w})
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
