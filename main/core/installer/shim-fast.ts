/**
 * The hook shim's fast path: a bash script the installer writes next to the launcher
 * (`<dataDir>/bin/aep-companion-hook.bash`), which the launcher runs first when `/bin/bash` exists.
 * It does what the Node shim does (post stdin to `/hooks/<vendor>`, print the reply, fail open)
 * with bash alone, reaching the daemon over bash's `/dev/tcp`. A vendor starts the shim for every
 * hook, and the fast path answers in the time a bash start takes, a fraction of a `node -e 0`
 * (`npm run bench hooks`).
 *
 * It covers the installed command's own shape (one vendor argument, a loopback `http:` daemon, a
 * payload of any size) and hands everything else, before anything is sent, to the Node shim
 * through the launcher (`AEP_HOOK_FAST=0`, the payload on its stdin): more arguments than the
 * vendor, `https:` or non-loopback URLs, a daemon.json or payload it cannot read unambiguously, a
 * token a header cannot carry. Once a request is sent, every failure is the vendor's empty reply,
 * as in the Node shim, and `AEP_HOOK_DOCTOR=1` gets the Node shim's report on stderr (so the doctor
 * checks the path hooks take). Vendor facts come from shim-tables.ts, as the Node shim's do;
 * written for bash 3.2 and later (macOS ships 3.2).
 */
import { ORDINARY_HOOK_DEADLINE_MS } from '../../../common/hook-shim';
import { VENDORS } from '../../../common/vendors';
import { LAUNCHER_NAME, quoteWord } from './hook-target';
import { emptyOutputTable, heldDeadlineTable, heldMomentsTable } from './shim-tables';

/** File name of the fast path next to the launcher. */
export const FAST_SCRIPT_NAME = `${LAUNCHER_NAME}.bash`;

/**
 * Requests with payloads above this many bytes are written by a child of the script: bash writes
 * without a deadline, and a daemon that stopped reading would hold a larger write past the kernel's
 * socket buffers, so the parent waits for the reply under the deadline and then ends the child.
 */
export const DIRECT_WRITE_LIMIT = 65_536;

const WORD = /^[A-Za-z0-9_-]+$/;

function word(text: string, what: string): string {
  if (!WORD.test(text))
    throw new Error(`the hook shim's fast path cannot carry the ${what} '${text}'`);
  return text;
}

/** The `case` arms, one per vendor: its empty reply, held moments and held deadline. */
function vendorArms(): string {
  const empty = emptyOutputTable();
  const held = heldMomentsTable();
  const heldMs = heldDeadlineTable();
  return VENDORS.map((vendor) => {
    const moments = held[vendor].map((m) => word(m, 'held moment'));
    const list = quoteWord(moments.length ? ` ${moments.join(' ')} ` : '');
    return `  ${word(vendor, 'vendor')}) empty=${quoteWord(empty[vendor])} held=${list} held_ms=${heldMs[vendor] ?? ORDINARY_HOOK_DEADLINE_MS} ;;`;
  }).join('\n');
}

/** The fast path's text. */
export function fastShimScript(): string {
  return `#!/bin/bash
# AEP Companion hook shim, fast path, written by the installer (reinstall to refresh; edits are replaced).
# Posts a vendor hook payload to the companion daemon over bash's /dev/tcp, prints the reply, and
# hands what it does not cover to the Node shim (the launcher with AEP_HOOK_FAST=0) before sending.
# Fail-open: on any problem it prints the vendor's empty reply and exits 0.
set +o posix +e +u
LC_ALL=C
trap '' PIPE
here=\${0%/*}
# The Node shim, with the payload on stdin when it has been read here.
handover() { AEP_HOOK_FAST=0 exec /bin/sh "$here/${LAUNCHER_NAME}" "$vendor"; }
handover_payload() { AEP_HOOK_FAST=0 exec /bin/sh "$here/${LAUNCHER_NAME}" "$vendor" < <(printf '%s' "$payload"); }
# Prints $1 and exits 0; under AEP_HOOK_DOCTOR=1, first the doctor's report (its fields in $2) on
# stderr, as the Node shim writes it.
answer() {
  [ -n "$writer" ] && kill "$writer" 2>/dev/null
  [ "$doctor" = 1 ] && printf '{"aepHookDoctor":{%s}}\\n' "$2" >&2
  printf '%s' "$1" 2>/dev/null
  exit 0
}
failed() { answer "$empty" "\\"url\\":\\"$where\\",\\"error\\":\\"$1\\""; }
refused() { answer "$empty" "\\"url\\":\\"$where\\",\\"status\\":$status,\\"error\\":\\"$1\\""; }
vendor=$1 writer=
[ $# -eq 1 ] || AEP_HOOK_FAST=0 exec /bin/sh "$here/${LAUNCHER_NAME}" "$@"
doctor=0
[ "\${AEP_HOOK_DOCTOR-}" = 1 ] && doctor=1
case $vendor in
${vendorArms()}
  *) handover ;;
esac
trim() { local t=$1; t=\${t#"\${t%%[![:space:]]*}"}; printf -v trimmed '%s' "\${t%"\${t##*[![:space:]]}"}"; }
data=\${AEP_COMPANION_DATA_DIR:-\${here%/*}}

url=\${AEP_COMPANION_URL-}
if [ -z "$url" ]; then
  info=
  { IFS= read -r -d '' info < "$data/daemon.json"; } 2>/dev/null
  if [ -n "$info" ]; then
    re='"url"[[:space:]]*:[[:space:]]*"([^"\\\\]*)"'
    [[ $info =~ $re ]] || handover
    url=\${BASH_REMATCH[1]}
    rest=\${info#*'"url"'}
    [[ $rest == *'"url"'* ]] && handover
  fi
  url=\${url:-http://127.0.0.1:8787}
fi
re='^http://(127\\.0\\.0\\.1|\\[::1\\])(:([1-9][0-9]{0,4}))?(/[^?#]*)?$'
[[ $url =~ $re ]] || handover
host=\${BASH_REMATCH[1]} port=\${BASH_REMATCH[3]:-80}
authority=$host
[ "$port" = 80 ] || authority=$host:$port
host=\${host#[}
host=\${host%]}

token=\${AEP_HOOK_TOKEN-}
if [ -z "$token" ]; then
  { IFS= read -r -d '' token < "$data/hook-token"; } 2>/dev/null
  trim "$token"
  token=$trimmed
fi
auth=
if [ -n "$token" ]; then
  re=$'[^\\t -~]'
  [[ $token =~ $re ]] && handover
  auth="Authorization: Bearer $token"$'\\r\\n'
fi
query=
[ "\${AEP_INSTRUCT-}" = 1 ] && query='instruct=1'
[ "\${AEP_PERMISSIONS-}" = 1 ] && query=\${query:+$query&}permissions=1
query=\${query:+?$query}
where=http://$authority/hooks/$vendor$query

ms=\${AEP_HOOK_TIMEOUT_MS-}
if [ -n "$ms" ]; then
  re='^[1-9][0-9]{0,8}$'
  [[ $ms =~ $re ]] || handover
fi

# \`read -N\` reads a pipe or socket (what a Node vendor gives its hooks) in blocks, where a
# delimited read takes a byte per call; bash before 4.1 has no -N and uses cat.
if [ "\${BASH_VERSINFO[0]}\${BASH_VERSINFO[1]}" -ge 41 ]; then
  payload= chunk=
  while IFS= read -r -N 65536 chunk; do payload+=$chunk; done
  payload+=$chunk
else
  payload=$(command -p cat 2>/dev/null)
  case $? in 126 | 127) handover ;; esac
fi
if [ -z "$ms" ]; then
  ms=${ORDINARY_HOOK_DEADLINE_MS}
  if [ "\${AEP_PERMISSIONS-}" = 1 ] && [ -n "$held" ]; then
    # The moment's name, when the payload names it once: else the Node shim parses it.
    case $payload in
      *'"hook_event_name"'*'"hook_event_name"'* | *'"hookEventName"'*'"hookEventName"'*) handover_payload ;;
      *'"hook_event_name"'*'"hookEventName"'* | *'"hookEventName"'*'"hook_event_name"'*) handover_payload ;;
    esac
    re='"(hook_event_name|hookEventName)"[[:space:]]*:[[:space:]]*("[A-Za-z0-9_]*")?'
    if [[ $payload =~ $re ]]; then
      [ -n "\${BASH_REMATCH[2]}" ] || handover_payload
      moment=\${BASH_REMATCH[2]//\\"/}
      [[ $held == *" $moment "* ]] && ms=$held_ms
    fi
  fi
fi
if [ "\${BASH_VERSINFO[0]}" -ge 4 ]; then
  printf -v seconds '%d.%03d' $((ms / 1000)) $((ms % 1000))
else
  # read -t takes whole seconds only: a finer deadline is the Node shim's.
  [ $((ms % 1000)) -eq 0 ] || handover_payload
  seconds=$((ms / 1000))
fi

if ! { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null; then
  [ $doctor = 1 ] || answer "$empty"
  reason=$( (exec 3<>"/dev/tcp/$host/$port") 2>&1)
  case $reason in
    *refused*) failed ECONNREFUSED ;;
    *)
      reason=\${reason%%$'\\n'*}
      failed "\${reason//[^A-Za-z0-9 ._-]/}" ;;
  esac
fi
request() {
  printf 'POST /hooks/%s%s HTTP/1.1\\r\\nHost: %s\\r\\nContent-Type: application/json\\r\\n%sContent-Length: %d\\r\\nConnection: close\\r\\n\\r\\n%s' \\
    "$vendor" "$query" "$authority" "$auth" \${#payload} "$payload" >&3 2>/dev/null
}
if [ \${#payload} -le ${DIRECT_WRITE_LIMIT} ]; then
  request || failed EPIPE
else
  # Larger than the socket buffers take at once: a child writes it, and the reply's deadline
  # below also bounds a daemon that stopped reading (answer ends the child).
  request &
  writer=$!
fi
reply=
if [ "\${BASH_VERSINFO[0]}\${BASH_VERSINFO[1]}" -ge 41 ]; then
  IFS= read -r -N 1048576 -t "$seconds" reply <&3
else
  IFS= read -r -d '' -t "$seconds" reply <&3
fi
[ $? -gt 128 ] && answer "$empty" "\\"error\\":\\"no reply within $ms ms\\""

# The reply: status line, headers, then a Content-Length, chunked or to-the-end body.
crlf=$'\\r\\n'
[[ $reply == *"$crlf$crlf"* ]] || failed 'the reply ended inside its headers'
head=\${reply%%"$crlf$crlf"*}
body=\${reply#*"$crlf$crlf"}
status_line=\${head%%"$crlf"*}
re='^HTTP/1\\.[01] ([0-9]{3})( |$)'
[[ $status_line =~ $re ]] || failed 'the reply is not HTTP/1.1'
status=\${BASH_REMATCH[1]}
headers=\${head#"$status_line"}
length=-1 chunked=0 digits='^[0-9]{1,9}$'
shopt -s nocasematch
while [ -n "$headers" ]; do
  headers=\${headers#"$crlf"}
  line=\${headers%%"$crlf"*}
  headers=\${headers#"$line"}
  trim "\${line#*:}"
  case \${line%%:*} in
    content-length) [[ $trimmed =~ $digits ]] && length=$((10#$trimmed)) ;;
    transfer-encoding) [[ $trimmed == *chunked* ]] && chunked=1 ;;
  esac
done
shopt -u nocasematch
if [ $chunked = 1 ]; then
  rest=$body body=
  re='^[[:space:]]*([0-9a-fA-F]{1,7})'
  while :; do
    [[ $rest == *"$crlf"* ]] || failed 'the reply ended before its body did'
    line=\${rest%%"$crlf"*}
    rest=\${rest#*"$crlf"}
    [[ $line =~ $re ]] || failed 'the reply ended before its body did'
    size=$((16#\${BASH_REMATCH[1]}))
    [ $size -eq 0 ] && break
    [ \${#rest} -ge $((size + 2)) ] || failed 'the reply ended before its body did'
    body+=\${rest:0:size}
    rest=\${rest:size+2}
  done
elif [ $length -ge 0 ]; then
  [ \${#body} -ge $length ] || failed 'the reply ended before its body did'
  body=\${body:0:length}
fi
[ "$status" -ge 200 ] && [ "$status" -lt 300 ] || refused "HTTP $status"
ok="\\"url\\":\\"$where\\",\\"status\\":$status"
trim "$body"
text=$trimmed
case $text in
  '') answer "$empty" "$ok" ;;
  '{'*'}')
    inner=\${text#'{'}
    trim "\${inner%'}'}"
    [ -z "$trimmed" ] && answer "$empty" "$ok,\\"reply\\":\\"empty\\""
    answer "$text" "$ok,\\"reply\\":\\"json\\"" ;;
esac
re='^(\\[.*\\]|".*"|-?[0-9][0-9.eE+-]*|true|false|null)$'
[[ $text =~ $re ]] && refused 'reply is not a JSON object'
refused 'reply is not JSON'
`;
}
