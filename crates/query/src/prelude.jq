# fs-mcp-query prelude: jq 1.7 behaviour on top of jaq's standard library.
#
# These definitions come after jaq's own, so user programs see them instead of
# jaq's versions. Names starting with `_fs_` are internal: the query rewriter
# (src/rewrite.rs) turns `p = v`, `p |= f`, `p += v`, ... into calls of the
# `_fs_*` helpers below. Natives used here (`_fs_mkpath`, `_fs_delpaths`,
# `_fs_tojson`, `_fs_join`, `_fs_halt_error`) live in src/natives.rs.

# --- Assignment that creates missing objects/arrays (jq semantics) ---------

# `_fs_vivify(p)` (native) makes every path of `p` assignable: it turns
# `null` on the way into `{}` or `[]` and pads arrays with `null` up to the
# index. Then jaq's own update runs.
def _fs_assign(p; $fs_v): _fs_vivify(p) | p = $fs_v;
def _fs_modify(p; f): _fs_vivify(p) | p |= f;
def _fs_add(p; $fs_v): _fs_vivify(p) | p += $fs_v;
def _fs_sub(p; $fs_v): _fs_vivify(p) | p -= $fs_v;
def _fs_mul(p; $fs_v): _fs_vivify(p) | p *= $fs_v;
def _fs_div(p; $fs_v): _fs_vivify(p) | p /= $fs_v;
def _fs_mod(p; $fs_v): _fs_vivify(p) | p %= $fs_v;
def _fs_alt(p; $fs_v): _fs_vivify(p) | p //= $fs_v;

def setpath($fs_p; $fs_v): _fs_mkpath($fs_p) | getpath($fs_p) = $fs_v;

# Deleting keeps the order of the remaining object keys (jaq's `|= empty`
# moves the last key into the hole).
def delpaths($fs_ps): _fs_delpaths($fs_ps);
def del(f): delpaths([path(f)]);

# --- Strings and numbers printed like jq -----------------------------------

def tojson: _fs_tojson;
def tostring: _fs_tostring;
def @json: tojson;
def @text: tostring;
def join($fs_sep): _fs_join($fs_sep);

def _fs_jaq_ltrimstr($fs_x): ltrimstr($fs_x);
def _fs_jaq_rtrimstr($fs_x): rtrimstr($fs_x);
def ltrimstr($fs_x):
  if type == "string" and ($fs_x | type) == "string" then _fs_jaq_ltrimstr($fs_x) else . end;
def rtrimstr($fs_x):
  if type == "string" and ($fs_x | type) == "string" then _fs_jaq_rtrimstr($fs_x) else . end;

# --- Arrays ----------------------------------------------------------------

# A sort and a pass over it, instead of jaq's `unique_by(.)` (a group per
# element): the same answer in half the memory.
def unique: _fs_unique;
# jaq's sort_by with one-value keys stored as they are (a third less memory).
def sort_by(f): _fs_sort_by(f);

# --- Generators -------------------------------------------------------------

def _fs_jaq_limit($fs_n; f): limit($fs_n; f);
# jq 1.7: a negative count passes every output through.
def limit($fs_n; f): if $fs_n < 0 then f else _fs_jaq_limit($fs_n; f) end;

# --- halt_error keeps its message for the report ---------------------------

def halt_error($fs_code): _fs_halt_error($fs_code);
def halt_error: halt_error(5);

# --- jq 1.7 builtins that jaq lacks ----------------------------------------

def leaf_paths: paths(scalars);

def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);

def INDEX(stream; idx_expr):
  reduce stream as $fs_row ({}; .[$fs_row | idx_expr | tostring] = $fs_row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);

def JOIN($fs_idx; idx_expr): [.[] | [., $fs_idx[idx_expr]]];
def JOIN($fs_idx; stream; idx_expr): stream | [., $fs_idx[idx_expr]];
def JOIN($fs_idx; stream; idx_expr; join_expr): stream | [., $fs_idx[idx_expr]] | join_expr;

# Streaming form: one `[path, leaf]` event per scalar or empty container, and
# a closing `[path]` event (the path of its last child) after each non-empty
# container.
def tostream:
  def _fs_walk: (.[]? | _fs_walk), .;
  path(_fs_walk) as $fs_p
  | getpath($fs_p)
  | if (type == "array" or type == "object") and length > 0
    then [$fs_p + [keys_unsorted[-1]]]
    else [$fs_p, .]
    end;

def fromstream(f):
  foreach f as $fs_ev ({v: null, done: false};
    (if .done then {v: null, done: false} end)
    | ($fs_ev[0]) as $fs_p
    | if ($fs_ev | length) == 2
      then .v |= setpath($fs_p; $fs_ev[1]) | .done = (($fs_p | length) == 0)
      else .done = (($fs_p | length) == 1)
      end;
    if .done then .v else empty end);

def truncate_stream(stream):
  . as $fs_depth
  | null
  | stream
  | select((.[0] | length) > $fs_depth)
  | .[0] |= .[$fs_depth:];

# --- jq 1.7 versions of jaq builtins that behave differently -----------------

# Negative indices are not keys of an array.
def _fs_jaq_has($fs_k): has($fs_k);
def has($fs_k):
  if type == "array" and ($fs_k | type) == "number" and $fs_k < 0 then false
  else _fs_jaq_has($fs_k) end;
def in(xs): . as $fs_x | xs | has($fs_x);

def _fs_jaq_nth($fs_n; f): nth($fs_n; f);
def nth($fs_n; f):
  if $fs_n < 0 then error("Out of bounds negative array index") else _fs_jaq_nth($fs_n; f) end;

# Base64 without padding decodes too.
def _fs_jaq_base64d: @base64d;
def @base64d:
  tostring
  | (length % 4) as $fs_r
  | if $fs_r == 2 then . + "==" elif $fs_r == 3 then . + "=" else . end
  | _fs_jaq_base64d;

# Works on arrays too (missing elements become null).
def pick(pathexps):
  . as $fs_top
  | reduce path(pathexps) as $fs_p (null; setpath($fs_p; $fs_top | getpath($fs_p)));

# Accepts key/k/name/Name/K/Key and value/v; non-string keys become their JSON text.
def from_entries:
  reduce .[] as $fs_e ({};
    . + { ($fs_e
           | if .key == null then .k // .name // .Name // .K // .Key else .key end
           | if type == "string" then . else tojson end):
          ($fs_e | if has("value") then .value else .v end) });
def with_entries(f): to_entries | map(f) | from_entries;

# Children first, then the node itself.
def walk(f):
  def _fs_walk_node:
    (if type == "object" then map_values(_fs_walk_node)
     elif type == "array" then map(_fs_walk_node)
     else . end)
    | f;
  _fs_walk_node;

# Whole seconds, like jq.
def todateiso8601: strftime("%Y-%m-%dT%H:%M:%SZ");
def todate: todateiso8601;

def date: todate;
def dateadd(u; n): . + n;
def datesub(u; n): . - n;
def toarray: if type == "array" then . else [.] end;
def have_literal_numbers: true;
def have_decnum: false;
def @base32: tostring | _fs_base32;
def @base32d: tostring | _fs_base32d;
