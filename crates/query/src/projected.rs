//! Reading JSON while building only what a query observes (see
//! [`crate::need`]): skipped values are checked for syntax but never built,
//! and an array can be streamed element by element.
//!
//! Values that are built are parsed by jaq's own reader, so they are exactly
//! the values the ordinary path would build. Anything unusual (jaq's JSON
//! extensions such as comments or `NaN` inside skipped values, duplicate keys
//! on a streamed path, several documents in a streamed file, syntax errors)
//! makes the reader give up with [`Unread`]; the caller then reads the file
//! the ordinary way, which also produces the exact error message.

use crate::ahead::{HEADROOM, Windows};
use crate::need::{Level, Need};
use crate::skip::{self, Invalid, MAX_JSON_DEPTH, Skipper};
use hifijson::token::{Expect, Lex};
use hifijson::{Read, SliceLexer};
use jaq_json::{Map, Rc, Val};
use std::borrow::Cow;
use std::collections::HashMap;

/// The projected read gave up; read the file the ordinary way.
#[derive(Debug)]
pub(crate) struct Unread;

impl From<Expect> for Unread {
    fn from(_: Expect) -> Self {
        Unread
    }
}

impl From<Invalid> for Unread {
    fn from(_: Invalid) -> Self {
        Unread
    }
}

/// Skip whitespace and `#` comments (as jaq's reader does), then peek.
fn ws(lexer: &mut SliceLexer) -> Option<u8> {
    loop {
        lexer.eat_whitespace();
        match lexer.peek_next() {
            Some(b'#') => lexer.skip_until(|c| c == b'\n'),
            next => return next,
        }
    }
}

/// Builds values from one file body (or from one window of it after
/// another: see [`ReadElements`]).
struct Builder<'a> {
    body: &'a [u8],
    /// The arrays and objects open at the lexer's position (of the file,
    /// for a window): values nested deeper than jq reads are refused.
    depth: usize,
    caches: Caches,
}

/// What a [`Builder`] keeps from one value to the next.
#[derive(Default)]
struct Caches {
    /// Object keys seen so far: every item of a big array has the same few
    /// keys, so they are shared instead of allocated again.
    keys: HashMap<Vec<u8>, Val>,
    /// Short string values seen so far (a group, a status, a region): the
    /// same few recur in every item, so they are built once and shared too
    /// (at most [`MAX_SHARED_STRINGS`] of them).
    strings: HashMap<Box<[u8]>, Val>,
    /// Built objects by their text (see [`Shared`]): the items of a big
    /// array often project to a few distinct small objects
    /// (`group_by(.group)` keeps only `{"group": …}` of each).
    objects: Shared,
    /// The values a [`Judge`] reads of one element.
    values: Vec<Option<Val>>,
    skipper: Skipper,
}

/// Small objects built so far, by a signature that determines the built
/// value: the need node and, per kept entry, the key and the value's text.
/// Equal signatures build equal values, and jq values have no identity, so
/// one copy can stand for all (an `Rc` clone instead of three allocations).
#[derive(Default)]
struct Shared {
    table: HashMap<Vec<u8>, Val>,
    lookups: usize,
    hits: usize,
}

/// Objects with a longer signature are not shared ...
const MAX_OBJECT_SIGNATURE: usize = 128;
/// ... nor more than this many distinct ones.
const MAX_SHARED_OBJECTS: usize = 4096;
/// Sharing stops after this many lookups if fewer than a quarter found a
/// copy (every item differs, e.g. it keeps an `id`): lookups then only cost.
const SHARING_TRIAL: usize = 4096;

impl Shared {
    fn active(&self) -> bool {
        self.lookups < SHARING_TRIAL || self.hits * 4 >= self.lookups
    }

    /// The shared copy of `built`, whose signature is `signature`.
    fn share(&mut self, signature: Vec<u8>, built: Val) -> Val {
        self.lookups += 1;
        if let Some(v) = self.table.get(&signature) {
            self.hits += 1;
            return v.clone();
        }
        if self.table.len() < MAX_SHARED_OBJECTS {
            self.table.insert(signature, built.clone());
        }
        built
    }
}

/// Append `part` to a signature, with its length first (so that no two
/// sequences of parts give the same bytes).
fn sign(signature: &mut Vec<u8>, part: &[u8]) {
    signature.extend_from_slice(&(part.len() as u32).to_le_bytes());
    signature.extend_from_slice(part);
}

/// Only string values this short are shared ...
const MAX_SHARED_STRING_BYTES: usize = 32;
/// ... and only this many distinct ones (a file of unique names must not
/// grow the table without bound; 10,000 owners or tags must fit).
const MAX_SHARED_STRINGS: usize = 1 << 16;

impl<'a> Builder<'a> {
    fn new(body: &'a [u8]) -> Self {
        Self {
            body,
            depth: 0,
            caches: Caches::default(),
        }
    }

    /// Run `inside` on the members of an array or object opened here, one
    /// level deeper; refused (for good) beyond [`MAX_JSON_DEPTH`].
    fn nested<T>(
        &mut self,
        inside: impl FnOnce(&mut Self) -> Result<T, Unread>,
    ) -> Result<T, Unread> {
        if self.depth >= MAX_JSON_DEPTH {
            self.caches.skipper.too_deep = true;
            return Err(Unread);
        }
        self.depth += 1;
        let result = inside(self);
        self.depth -= 1;
        result
    }

    fn offset(&self, lexer: &SliceLexer<'a>) -> usize {
        lexer.as_slice().as_ptr() as usize - self.body.as_ptr() as usize
    }

    /// Pass over the value starting at the lexer's next byte (checked, not
    /// built).
    fn skip(&mut self, lexer: &mut SliceLexer<'a>) -> Result<(), Unread> {
        let body = self.body;
        let end = self
            .caches
            .skipper
            .value(body, self.offset(lexer), self.depth)?;
        *lexer = SliceLexer::new(&body[end..]);
        Ok(())
    }

    /// Parse the value starting at the lexer's next byte as jaq's reader
    /// does: strings without escapes, numbers and literals directly (the
    /// same values `parse_single` builds), anything else with jaq's reader.
    fn whole(&mut self, lexer: &mut SliceLexer<'a>) -> Result<Val, Unread> {
        let body = self.body;
        let start = self.offset(lexer);
        self.skip(lexer)?;
        let text = &body[start..self.offset(lexer)];
        match text {
            [b'"', raw @ .., b'"'] if !raw.contains(&b'\\') => Ok(self.string(raw)),
            [b'0'..=b'9' | b'-', ..] => jaq_json::read::parse_single_num(text)
                .map(Val::Num)
                .ok_or(Unread),
            b"null" => Ok(Val::Null),
            b"true" => Ok(Val::Bool(true)),
            b"false" => Ok(Val::Bool(false)),
            _ => jaq_json::read::parse_single(text).map_err(|_| Unread),
        }
    }

    /// The value starting at the peeked `next`, built as far as `need` asks.
    fn value(&mut self, next: u8, lexer: &mut SliceLexer<'a>, need: &Need) -> Result<Val, Unread> {
        if need.is_full() {
            return self.whole(lexer);
        }
        match next {
            b'[' | b'{' => self.nested(|this| this.container(next, lexer, need)),
            // scalars are kept whole
            _ => self.whole(lexer),
        }
    }

    /// The array or object starting at the peeked `next`, built as far as
    /// `need` asks.
    fn container(
        &mut self,
        next: u8,
        lexer: &mut SliceLexer<'a>,
        need: &Need,
    ) -> Result<Val, Unread> {
        match next {
            b'[' => {
                let mut arr = Vec::new();
                lexer.discarded().seq(b']', ws, |next, lexer| {
                    match need.each.as_deref() {
                        Some(each) => arr.push(self.value(next, lexer, each)?),
                        None => {
                            self.skip(lexer)?;
                            if need.level >= Level::Shallow {
                                arr.push(Val::Null);
                            }
                        }
                    }
                    Ok::<_, Unread>(())
                })?;
                Ok(Val::Arr(Rc::new(arr)))
            }
            b'{' => {
                // sized for the keys kept: a projection keeps few of many
                // objects, and a map grown by inserts has room for more
                let mut obj = match need.keeps_all_keys() {
                    true => Map::default(),
                    false => Map::with_capacity_and_hasher(need.keys.len(), Default::default()),
                };
                let mut signature = self.caches.objects.active().then(|| {
                    let node: *const Need = need;
                    (node as usize).to_le_bytes().to_vec()
                });
                lexer.discarded().seq(b'}', ws, |next, lexer| {
                    let key = self.key(next, lexer)?;
                    lexer.expect(ws, b':').ok_or(Unread)?;
                    let next = ws(lexer).ok_or(Unread)?;
                    match need.key(&key) {
                        Some(node) => {
                            let start = self.offset(lexer);
                            let v = self.value(next, lexer, node)?;
                            if let Some(sig) = &mut signature {
                                sign(sig, &key);
                                sign(sig, &self.body[start..self.offset(lexer)]);
                            }
                            obj.insert(self.key_val(&key), v);
                        }
                        None => {
                            self.skip(lexer)?;
                            if need.keeps_all_keys() {
                                if let Some(sig) = &mut signature {
                                    sign(sig, &key);
                                    // no value text: a kept key's value is null
                                    sig.push(0xFF);
                                }
                                obj.insert(self.key_val(&key), Val::Null);
                            }
                        }
                    }
                    if signature
                        .as_ref()
                        .is_some_and(|s| s.len() > MAX_OBJECT_SIGNATURE)
                    {
                        signature = None;
                    }
                    Ok::<_, Unread>(())
                })?;
                let built = Val::obj(obj);
                Ok(match signature {
                    Some(sig) => self.caches.objects.share(sig, built),
                    None => built,
                })
            }
            _ => Err(Unread),
        }
    }

    /// Whether `judge` keeps the element starting at the peeked `next` (the
    /// lexer passes over it either way).
    fn keeps(
        &mut self,
        next: u8,
        lexer: &mut SliceLexer<'a>,
        judge: &dyn Judge,
    ) -> Result<bool, Unread> {
        let verdict = match (judge.keys(), judge.need()) {
            (Some(keys), _) if next == b'{' => {
                let mut values = std::mem::take(&mut self.caches.values);
                values.clear();
                values.resize(keys.len(), None);
                self.nested(|this| {
                    lexer.discarded().seq(b'}', ws, |next, lexer| {
                        let key = this.key(next, lexer)?;
                        lexer.expect(ws, b':').ok_or(Unread)?;
                        ws(lexer).ok_or(Unread)?;
                        match keys.iter().position(|k| **k == *key) {
                            Some(i) => values[i] = Some(this.whole(lexer)?),
                            None => this.skip(lexer)?,
                        }
                        Ok::<_, Unread>(())
                    })
                })?;
                let verdict = judge.by_keys(Some(&values));
                self.caches.values = values;
                verdict
            }
            (Some(_), _) => {
                self.skip(lexer)?;
                judge.by_keys(None)
            }
            (None, Some(need)) => {
                let v = self.value(next, lexer, need)?;
                judge.by_value(&v)
            }
            (None, None) => {
                self.skip(lexer)?;
                None
            }
        };
        Ok(verdict != Some(false))
    }

    /// An element of a streamed array: built as far as `need` asks, or, when
    /// the query never looks at elements (`need` is `None`), passed over and
    /// stood for by `null`.
    fn element(
        &mut self,
        next: u8,
        lexer: &mut SliceLexer<'a>,
        need: Option<&Need>,
    ) -> Result<Val, Unread> {
        match need {
            Some(need) => self.value(next, lexer, need),
            None => self.skip(lexer).map(|()| Val::Null),
        }
    }

    /// The text of the object key starting at the peeked `next` (borrowed
    /// from the body unless it has escapes).
    fn key(&self, next: u8, lexer: &mut SliceLexer<'a>) -> Result<Cow<'a, [u8]>, Unread> {
        if next != b'"' {
            // jaq allows non-string keys; leave those to it
            return Err(Unread);
        }
        let body = self.body;
        let start = self.offset(lexer);
        let end = skip::string_end(body, start + 1)?;
        *lexer = SliceLexer::new(&body[end..]);
        let raw = &body[start + 1..end - 1];
        if !raw.contains(&b'\\') {
            return Ok(Cow::Borrowed(raw));
        }
        match jaq_json::read::parse_single(&body[start..end]) {
            Ok(Val::TStr(s)) => Ok(Cow::Owned(s.to_vec())),
            _ => Err(Unread),
        }
    }

    /// A string value without escapes, shared with its earlier copies when
    /// it is short.
    fn string(&mut self, raw: &[u8]) -> Val {
        if raw.len() > MAX_SHARED_STRING_BYTES {
            return Val::utf8_str(raw.to_vec());
        }
        if let Some(v) = self.caches.strings.get(raw) {
            return v.clone();
        }
        let v = Val::utf8_str(raw.to_vec());
        if self.caches.strings.len() < MAX_SHARED_STRINGS {
            self.caches.strings.insert(raw.into(), v.clone());
        }
        v
    }

    /// The value of an object key: one shared string per distinct key.
    fn key_val(&mut self, key: &[u8]) -> Val {
        if let Some(v) = self.caches.keys.get(key) {
            return v.clone();
        }
        let v = Val::utf8_str(key.to_vec());
        self.caches.keys.insert(key.to_vec(), v.clone());
        v
    }
}

/// Every top-level value of `body`, built as far as `need` asks.
pub(crate) fn read_all(body: &[u8], need: &Need) -> Result<Vec<Val>, Unread> {
    let mut builder = Builder::new(body);
    let mut lexer = SliceLexer::new(body);
    let mut values = Vec::new();
    while let Some(next) = ws(&mut lexer) {
        values.push(builder.value(next, &mut lexer, need)?);
    }
    Ok(values)
}

/// The elements of the array at `path` (object keys from the root) of a
/// file that holds exactly one JSON value, built as far as `element` asks,
/// one at a time.
///
/// Iterate, then call [`Elements::finish`]: only if it succeeds were the
/// elements exactly those of the array the ordinary reader would see (the
/// rest of the file is checked only then: no second value, no later
/// duplicate of a key on the path, valid syntax).
pub(crate) struct Elements<'a, 'n> {
    builder: Builder<'a>,
    lexer: SliceLexer<'a>,
    path: &'n [Vec<u8>],
    /// What the query observes of each element (`None`: nothing).
    element: Option<&'n Need>,
    state: State,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    First,
    Next,
    Done,
    Failed,
}

impl<'a, 'n> Elements<'a, 'n> {
    pub(crate) fn new(body: &'a [u8], path: &'n [Vec<u8>], element: Option<&'n Need>) -> Self {
        Self {
            builder: Builder::new(body),
            lexer: SliceLexer::new(body),
            path,
            element,
            state: State::Start,
        }
    }

    /// Walk from the root to the opening `[` of the array.
    fn descend(&mut self) -> Result<(), Unread> {
        for key in self.path {
            if ws(&mut self.lexer) != Some(b'{') {
                return Err(Unread);
            }
            self.lexer.take_next();
            let mut first = true;
            loop {
                let mut next = ws(&mut self.lexer).ok_or(Unread)?;
                if !first {
                    if next != b',' {
                        return Err(Unread);
                    }
                    self.lexer.take_next();
                    next = ws(&mut self.lexer).ok_or(Unread)?;
                }
                first = false;
                let k = self.builder.key(next, &mut self.lexer)?;
                self.lexer.expect(ws, b':').ok_or(Unread)?;
                if *k == **key {
                    break;
                }
                ws(&mut self.lexer).ok_or(Unread)?;
                self.builder.skip(&mut self.lexer)?;
            }
        }
        if ws(&mut self.lexer) != Some(b'[') {
            return Err(Unread);
        }
        self.lexer.take_next();
        Ok(())
    }

    /// Move to the first byte of the next element; `None` after the
    /// closing `]`.
    fn next_start(&mut self) -> Result<Option<u8>, Unread> {
        if self.state == State::Start {
            self.descend()?;
            self.state = State::First;
        }
        let mut next = ws(&mut self.lexer).ok_or(Unread)?;
        if next == b']' {
            self.lexer.take_next();
            return Ok(None);
        }
        if self.state == State::Next {
            if next != b',' {
                return Err(Unread);
            }
            self.lexer.take_next();
            next = ws(&mut self.lexer).ok_or(Unread)?;
        }
        self.state = State::Next;
        Ok(Some(next))
    }

    /// The next element: built first as far as `probe` asks and passed
    /// over when `judge` says `Some(false)` of that, else built as far as
    /// the element need asks. `Ok(None)` after the last element.
    pub(crate) fn next_judged(&mut self, judge: &dyn Judge) -> Result<Option<Val>, Unread> {
        if matches!(self.state, State::Done | State::Failed) {
            return Ok(None);
        }
        let found = self.judged(judge);
        match &found {
            Ok(Some(_)) => {}
            Ok(None) => self.state = State::Done,
            Err(Unread) => self.state = State::Failed,
        }
        found
    }

    fn judged(&mut self, judge: &dyn Judge) -> Result<Option<Val>, Unread> {
        let body = self.builder.body;
        while let Some(next) = self.next_start()? {
            let start = self.builder.offset(&self.lexer);
            if !self.builder.keeps(next, &mut self.lexer, judge)? {
                continue;
            }
            let mut again = SliceLexer::new(&body[start..]);
            let v = self.builder.element(next, &mut again, self.element)?;
            return Ok(Some(v));
        }
        Ok(None)
    }

    fn element(&mut self) -> Result<Option<Val>, Unread> {
        match self.next_start()? {
            Some(next) => self
                .builder
                .element(next, &mut self.lexer, self.element)
                .map(Some),
            None => Ok(None),
        }
    }

    /// Check the rest of the file (after skipping any elements not taken).
    pub(crate) fn finish(mut self) -> Result<(), Unread> {
        if self.state == State::Failed {
            return Err(Unread);
        }
        if self.state != State::Done {
            // elements nobody takes are only checked, not built
            while self.next_start()?.is_some() {
                self.builder.skip(&mut self.lexer)?;
            }
        }
        // close every object on the path, innermost first
        for key in self.path.iter().rev() {
            loop {
                match ws(&mut self.lexer).ok_or(Unread)? {
                    b'}' => {
                        self.lexer.take_next();
                        break;
                    }
                    b',' => {
                        self.lexer.take_next();
                        let next = ws(&mut self.lexer).ok_or(Unread)?;
                        if *self.builder.key(next, &mut self.lexer)? == **key {
                            // a later duplicate key wins in jq
                            return Err(Unread);
                        }
                        self.lexer.expect(ws, b':').ok_or(Unread)?;
                        ws(&mut self.lexer).ok_or(Unread)?;
                        self.builder.skip(&mut self.lexer)?;
                    }
                    _ => return Err(Unread),
                }
            }
        }
        match ws(&mut self.lexer) {
            None => Ok(()),
            Some(_) => Err(Unread),
        }
    }
}

impl Iterator for Elements<'_, '_> {
    type Item = Val;

    fn next(&mut self) -> Option<Val> {
        if matches!(self.state, State::Done | State::Failed) {
            return None;
        }
        match self.element() {
            Ok(Some(v)) => Some(v),
            Ok(None) => {
                self.state = State::Done;
                None
            }
            Err(Unread) => {
                self.state = State::Failed;
                None
            }
        }
    }
}

/// What decides, from a part of an element, to pass over the element
/// (`Some(false)`) before it is built as far as the query observes.
pub(crate) trait Judge {
    /// The keys to read of an object element, if their values suffice.
    fn keys(&self) -> Option<&[Vec<u8>]>;
    /// Else what to build of the element to judge it.
    fn need(&self) -> Option<&Need>;
    /// Judge the values of [`Judge::keys`] in an object element (the last
    /// of a repeated key; `None`: missing); `values` is `None` for an element
    /// that is not an object.
    fn by_keys(&self, values: Option<&[Option<Val>]>) -> Option<bool>;
    /// Judge the element built as far as [`Judge::need`] asks.
    fn by_value(&self, v: &Val) -> Option<bool>;
}

/// The judge of [`ElementSource::next_judged`].
pub(crate) type Probe<'p> = &'p dyn Judge;

/// Elements of a streamed array, from the whole body or read a window at a
/// time.
pub(crate) trait ElementSource {
    /// The next element: with a probe, built first as far as it asks and
    /// passed over when the judge drops it, else built as far as the element
    /// need asks. `Ok(None)` after the last element.
    fn next_judged(&mut self, probe: Option<Probe<'_>>) -> Result<Option<Val>, Unread>;

    /// Check the rest of the file (after passing over any elements not
    /// taken): only if this succeeds were the elements exactly those of the
    /// array the ordinary reader would see.
    fn finish(self) -> Result<(), Unread>;
}

impl ElementSource for Elements<'_, '_> {
    fn next_judged(&mut self, probe: Option<Probe<'_>>) -> Result<Option<Val>, Unread> {
        match probe {
            Some(judge) => Elements::next_judged(self, judge),
            None => match self.next() {
                Some(v) => Ok(Some(v)),
                None if self.state == State::Failed => Err(Unread),
                None => Ok(None),
            },
        }
    }

    fn finish(self) -> Result<(), Unread> {
        Elements::finish(self)
    }
}

impl ElementSource for ReadElements<'_, '_> {
    fn next_judged(&mut self, probe: Option<Probe<'_>>) -> Result<Option<Val>, Unread> {
        ReadElements::next_judged(self, probe)
    }

    fn finish(self) -> Result<(), Unread> {
        ReadElements::finish(self)
    }
}

/// The elements of the array at `path` of a JSON file read from `reader` a
/// window at a time, so that the file is never held whole: the same
/// elements, built the same way, as [`Elements`] gives from the whole body.
///
/// Every step (a key, a skipped value, an element) runs on the bytes read so
/// far; if it fails before the end of the file, or ends where the next token
/// is not yet read, more is read and the step runs again. A step only fails
/// for good at the end of the file, so the reader gives up ([`Unread`])
/// exactly where [`Elements`] would. [`ReadElements::finish`] checks the rest
/// of the file as [`Elements::finish`] does.
pub(crate) struct ReadElements<'n, 'r> {
    /// The file, a window at a time (read ahead on a second thread).
    windows: Windows<'r>,
    /// The bytes in view: those of `buf[pos..]` are not consumed yet.
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    /// (The ordinary reader refuses a file that nests too deeply anywhere;
    /// every value read is checked for its depth as it is skipped, so this
    /// one gives up on such a file too.)
    caches: Caches,
    path: &'n [Vec<u8>],
    element: Option<&'n Need>,
    state: State,
}

/// Bytes read at least at once by [`ReadElements`].
pub(crate) const WINDOW_BYTES: usize = 4 << 20;

/// One step through the array.
enum Next {
    End,
    /// An element the judge dropped.
    Dropped,
    Element(Val),
}

impl<'n, 'r> ReadElements<'n, 'r> {
    pub(crate) fn new(
        windows: Windows<'r>,
        path: &'n [Vec<u8>],
        element: Option<&'n Need>,
    ) -> Self {
        Self {
            windows,
            buf: Vec::new(),
            pos: 0,
            eof: false,
            caches: Caches::default(),
            path,
            element,
            state: State::Start,
        }
    }

    /// Read more: at least a window, or as much again as is held (an
    /// element longer than the window doubles it). The unconsumed bytes go
    /// into the room before the next window's bytes when they fit (the
    /// usual case: a part of one element), so the window is not copied.
    fn fill(&mut self) -> Result<(), Unread> {
        let held = self.buf.len() - self.pos;
        let mut added = 0;
        while !self.eof && (added == 0 || added < held) {
            let Some(mut window) = self.windows.next().map_err(|_| Unread)? else {
                self.eof = true;
                break;
            };
            added += window.len() - HEADROOM;
            let unconsumed = self.buf.len() - self.pos;
            if unconsumed <= HEADROOM {
                let start = HEADROOM - unconsumed;
                window[start..HEADROOM].copy_from_slice(&self.buf[self.pos..]);
                let done = std::mem::replace(&mut self.buf, window);
                self.pos = start;
                self.windows.recycle(done);
            } else {
                self.buf.drain(..self.pos);
                self.pos = 0;
                self.buf.extend_from_slice(&window[HEADROOM..]);
                self.windows.recycle(window);
            }
        }
        Ok(())
    }

    /// Run `step` on the unread bytes, `depth` arrays and objects deep,
    /// reading more until it succeeds with its following token in view, or
    /// fails at the end of the file (or for nesting too deep: more bytes
    /// cannot change that).
    fn step<T>(
        &mut self,
        depth: usize,
        mut step: impl for<'b> FnMut(&mut Builder<'b>, &mut SliceLexer<'b>) -> Result<T, Unread>,
    ) -> Result<T, Unread> {
        loop {
            let body = &self.buf[self.pos..];
            let mut builder = Builder {
                body,
                depth,
                caches: std::mem::take(&mut self.caches),
            };
            let mut lexer = SliceLexer::new(body);
            let result = step(&mut builder, &mut lexer);
            let used = builder.offset(&lexer);
            let in_view = ws(&mut lexer).is_some();
            self.caches = builder.caches;
            match result {
                Ok(t) if in_view || self.eof => {
                    self.pos += used;
                    return Ok(t);
                }
                Err(Unread) if self.eof || self.caches.skipper.too_deep => return Err(Unread),
                _ => self.fill()?,
            }
        }
    }

    /// Read the start of the file: refuse what the ordinary reader must
    /// report (binary, UTF-16), pass over a byte order mark.
    fn start(&mut self) -> Result<(), Unread> {
        while self.buf.len() - self.pos < fs_mcp_text::SNIFF_BYTES && !self.eof {
            self.fill()?;
        }
        let head = &self.buf[self.pos..];
        if head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF") {
            return Err(Unread);
        }
        if fs_mcp_text::is_binary(head) {
            return Err(Unread);
        }
        if head.starts_with(b"\xEF\xBB\xBF") {
            self.pos += 3;
        }
        Ok(())
    }

    /// Walk from the root to the opening `[` of the array.
    fn descend(&mut self) -> Result<(), Unread> {
        self.start()?;
        if self.path.len() >= MAX_JSON_DEPTH {
            return Err(Unread);
        }
        for (level, key) in self.path.iter().enumerate() {
            // the members of this object are `inside` deep
            let inside = level + 1;
            self.step(level, |_, lexer| {
                if ws(lexer) != Some(b'{') {
                    return Err(Unread);
                }
                lexer.take_next();
                Ok(())
            })?;
            let mut first = true;
            loop {
                let found = self.step(inside, |builder, lexer| {
                    let mut next = ws(lexer).ok_or(Unread)?;
                    if !first {
                        if next != b',' {
                            return Err(Unread);
                        }
                        lexer.take_next();
                        next = ws(lexer).ok_or(Unread)?;
                    }
                    let k = builder.key(next, lexer)?;
                    lexer.expect(ws, b':').ok_or(Unread)?;
                    Ok(*k == **key)
                })?;
                first = false;
                if found {
                    break;
                }
                self.step(inside, |builder, lexer| {
                    ws(lexer).ok_or(Unread)?;
                    builder.skip(lexer)
                })?;
            }
        }
        self.step(self.path.len(), |_, lexer| {
            if ws(lexer) != Some(b'[') {
                return Err(Unread);
            }
            lexer.take_next();
            Ok(())
        })
    }

    /// One step through the array: the next element built as far as
    /// `probe` asks and dropped when `judge` says `Some(false)`, else built
    /// as far as the element need asks.
    fn advance(&mut self, probe: Option<Probe<'_>>) -> Result<Next, Unread> {
        if self.state == State::Start {
            self.descend()?;
            self.state = State::First;
        }
        let (element, after_first) = (self.element, self.state == State::Next);

        let next = self.step(self.path.len() + 1, |builder, lexer| {
            let mut next = ws(lexer).ok_or(Unread)?;
            if next == b']' {
                lexer.take_next();
                return Ok(Next::End);
            }
            if after_first {
                if next != b',' {
                    return Err(Unread);
                }
                lexer.take_next();
                next = ws(lexer).ok_or(Unread)?;
            }
            if let Some(judge) = probe {
                let start = builder.offset(lexer);
                if !builder.keeps(next, lexer, judge)? {
                    return Ok(Next::Dropped);
                }
                let body = builder.body;
                let mut again = SliceLexer::new(&body[start..]);
                return builder
                    .element(next, &mut again, element)
                    .map(Next::Element);
            }
            builder.element(next, lexer, element).map(Next::Element)
        })?;
        self.state = match next {
            Next::End => State::Done,
            _ => State::Next,
        };
        Ok(next)
    }

    /// The next element (see [`Elements::next_judged`]); `Ok(None)` after the
    /// last one. With no probe, every element is built.
    pub(crate) fn next_judged(&mut self, probe: Option<Probe<'_>>) -> Result<Option<Val>, Unread> {
        loop {
            if matches!(self.state, State::Done | State::Failed) {
                return Ok(None);
            }
            match self.advance(probe) {
                Ok(Next::End) => return Ok(None),
                Ok(Next::Dropped) => {}
                Ok(Next::Element(v)) => return Ok(Some(v)),
                Err(Unread) => {
                    self.state = State::Failed;
                    return Err(Unread);
                }
            }
        }
    }

    /// Check the rest of the file (after passing over any elements not
    /// taken), as [`Elements::finish`] does.
    pub(crate) fn finish(mut self) -> Result<(), Unread> {
        match self.state {
            State::Failed => return Err(Unread),
            State::Start => self.descend().map(|()| self.state = State::First)?,
            _ => {}
        }
        while self.state != State::Done {
            let after_first = self.state == State::Next;
            let end = self.step(self.path.len() + 1, |builder, lexer| {
                let mut next = ws(lexer).ok_or(Unread)?;
                if next == b']' {
                    lexer.take_next();
                    return Ok(true);
                }
                if after_first {
                    if next != b',' {
                        return Err(Unread);
                    }
                    lexer.take_next();
                    next = ws(lexer).ok_or(Unread)?;
                }
                let _ = next;
                builder.skip(lexer).map(|()| false)
            })?;
            self.state = if end { State::Done } else { State::Next };
        }
        for (level, key) in self.path.iter().enumerate().rev() {
            loop {
                let closed = self.step(level + 1, |builder, lexer| {
                    match ws(lexer).ok_or(Unread)? {
                        b'}' => {
                            lexer.take_next();
                            Ok(true)
                        }
                        b',' => {
                            lexer.take_next();
                            let next = ws(lexer).ok_or(Unread)?;
                            if *builder.key(next, lexer)? == **key {
                                // a later duplicate key wins in jq
                                return Err(Unread);
                            }
                            lexer.expect(ws, b':').ok_or(Unread)?;
                            ws(lexer).ok_or(Unread)?;
                            builder.skip(lexer).map(|()| false)
                        }
                        _ => Err(Unread),
                    }
                })?;
                if closed {
                    break;
                }
            }
        }
        // nothing but whitespace and comments may follow
        loop {
            let mut lexer = SliceLexer::new(&self.buf[self.pos..]);
            if ws(&mut lexer).is_some() {
                return Err(Unread);
            }
            if self.eof {
                return Ok(());
            }
            self.pos = self.buf.len() - lexer.as_slice().len();
            self.fill()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::need::Step;

    fn need(paths: &[(&[&str], Level)], each_at_root: bool) -> Need {
        let mut n = Need::default();
        for (path, level) in paths {
            let mut steps: Vec<Step> = Vec::new();
            for p in *path {
                steps.push(match *p {
                    "[]" => Step::Each,
                    k => Step::Key(k.as_bytes().to_vec()),
                });
            }
            n.mark(&steps, *level);
        }
        if each_at_root {
            n.mark(&[Step::Each], Level::Reached);
        }
        n.normalize();
        n
    }

    fn json(v: &Val) -> String {
        crate::json_out::to_json(v)
    }

    #[test]
    fn builds_only_what_is_needed() {
        let body = br#"{"a": {"x": 1, "y": [1,2]}, "b": [{"k": 1, "j": 2}, {"k": 3}], "c": "z"}"#;
        let n = need(
            &[(&["a", "x"], Level::Full), (&["b", "[]", "k"], Level::Full)],
            false,
        );
        let v = read_all(body, &n).unwrap();
        assert_eq!(json(&v[0]), r#"{"a":{"x":1},"b":[{"k":1},{"k":3}]}"#);
    }

    #[test]
    fn shallow_keeps_size_and_keys() {
        let body = br#"{"items": [{"a": 1}, 2, "x"], "o": {"p": 1, "q": 2}}"#;
        let n = need(
            &[(&["items"], Level::Shallow), (&["o"], Level::Shallow)],
            false,
        );
        let v = read_all(body, &n).unwrap();
        assert_eq!(
            json(&v[0]),
            r#"{"items":[null,null,null],"o":{"p":null,"q":null}}"#
        );
    }

    #[test]
    fn several_documents_and_comments() {
        let body = b"# c\n{\"a\": 1, \"b\": 2}\n{\"a\": 3}\n";
        let n = need(&[(&["a"], Level::Full)], false);
        let v = read_all(body, &n).unwrap();
        assert_eq!(
            v.iter().map(json).collect::<Vec<_>>(),
            [r#"{"a":1}"#, r#"{"a":3}"#]
        );
    }

    #[test]
    fn shared_strings_beyond_the_table_are_still_built() {
        let mut body = String::from("[");
        for i in 0..(MAX_SHARED_STRINGS + 100) {
            body.push_str(&format!("\"s{i}\", \"g\", \"{}\", ", "x".repeat(40)));
        }
        body.push_str("\"end\"]");
        let n = need(&[(&["[]"], Level::Full)], false);
        let ours = read_all(body.as_bytes(), &n).unwrap();
        let whole = jaq_json::read::parse_single(body.as_bytes()).unwrap();
        assert_eq!(json(&ours[0]), json(&whole));
    }

    #[test]
    fn equal_small_objects_are_shared() {
        let mut body = String::from("[");
        for i in 0..50 {
            body.push_str(&format!(
                "{{\"id\": {i}, \"g\": \"g{}\", \"o\": {{\"r\": {}}}}}, ",
                i % 3,
                i % 2
            ));
        }
        body.push_str("{\"g\": \"g0\", \"o\": {\"r\": 0}}]");
        let n = need(
            &[
                (&["[]", "g"], Level::Full),
                (&["[]", "o", "r"], Level::Full),
            ],
            false,
        );
        let ours = read_all(body.as_bytes(), &n).unwrap();
        let Val::Arr(items) = &ours[0] else {
            panic!("an array")
        };
        // six distinct projections (g × r), all else shared
        let mut distinct: Vec<*const Map> = Vec::new();
        for item in items.iter() {
            let Val::Obj(o) = item else { panic!("objects") };
            if !distinct.contains(&Rc::as_ptr(o)) {
                distinct.push(Rc::as_ptr(o));
            }
        }
        assert_eq!(distinct.len(), 6);
        let whole = jaq_json::read::parse_single(body.as_bytes()).unwrap();
        let projected = |v: &Val| {
            let Val::Arr(a) = v else { panic!("an array") };
            a.iter()
                .map(|o| {
                    let Val::Obj(o) = o else { panic!("objects") };
                    let g = o.get(&Val::from("g".to_string())).cloned();
                    let r = o.get(&Val::from("o".to_string())).map(json);
                    format!("{:?}/{:?}", g.map(|g| json(&g)), r)
                })
                .collect::<Vec<_>>()
        };
        let expected: Vec<String> = projected(&whole)
            .into_iter()
            .map(|s| s.replace(", ", ","))
            .collect();
        assert_eq!(projected(&ours[0]), expected);
    }

    #[test]
    fn escaped_keys_match() {
        let body = br#"{"a\u0062": 1, "c": 2}"#;
        let n = need(&[(&["ab"], Level::Full)], false);
        assert_eq!(json(&read_all(body, &n).unwrap()[0]), r#"{"ab":1}"#);
    }

    #[test]
    fn gives_up_on_what_jaq_decides() {
        let n = need(&[(&["a"], Level::Full)], false);
        for body in [
            &b"{\"a\": 1, \"b\": NaN}"[..],
            b"{\"a\": 1, \"b\": [1 2]}",
            b"{1: 2}",
        ] {
            assert!(
                read_all(body, &n).is_err(),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn streams_elements() {
        let body =
            br#"{"meta": {"n": 2}, "items": [{"id": 1, "x": "a"}, {"id": 2, "x": "b"}], "z": 0}"#;
        let path = vec![b"items".to_vec()];
        let n = need(&[(&["[]", "id"], Level::Full)], false);
        let element = n.each.as_deref().unwrap();
        let mut it = Elements::new(body, &path, Some(element));
        let got: Vec<String> = it.by_ref().map(|v| json(&v)).collect();
        assert_eq!(got, [r#"{"id":1}"#, r#"{"id":2}"#]);
        assert!(it.finish().is_ok());
    }

    /// Read a window at a time, with windows of every small size: the same
    /// elements and the same refusals as from the whole body.
    #[test]
    fn windows_read_like_the_whole_body() {
        let path = vec![b"items".to_vec()];
        let n = need(
            &[(&["[]", "id"], Level::Full), (&["[]", "s"], Level::Full)],
            false,
        );
        let element = n.each.as_deref();
        let bodies: &[&[u8]] = &[
            br#"{"meta": {"n": [2, {"x": "]"}]}, "items": [{"id": 1, "s": "a\"]}"}, 2, "s", [1], {"id": 12345, "x": {"y": [true, null]}}], "z": 0}"#,
            b"\xEF\xBB\xBF{\"items\": [{\"id\": 1.5e3}, {\"id\": -0}]}\n  # comment\n",
            br#"{"items": []}"#,
            br#"{"items": [1], "items": [2]}"#,
            br#"{"items": [1]} {"items": [2]}"#,
            br#"{"items": {"a": 1}}"#,
            br#"{"items": [1, 2}"#,
            br#"{"items": [1, 2], "z": tru}"#,
            br#"{"items": [{"id": 12"#,
            br#"[1]"#,
            b"{\"items\": [\"\\u00e9\", \"x\0\"]}",
        ];
        for body in bodies {
            let whole = {
                // the ordinary path strips a byte order mark first
                let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
                let mut it = Elements::new(body, &path, element);
                let got: Vec<String> = it.by_ref().map(|v| json(&v)).collect();
                it.finish().map(|()| got)
            };
            for window in 1..24 {
                let read = |windows: Windows<'_>| {
                    let mut it = ReadElements::new(windows, &path, element);
                    let mut got = Vec::new();
                    while let Ok(Some(v)) = it.next_judged(None) {
                        got.push(json(&v));
                    }
                    it.finish().map(|()| got)
                };
                // read ahead on a thread, and on this one
                let ahead = crate::ahead::read_ahead(&mut &body[..], window, read);
                let here = read(Windows::here(&mut &body[..], window));
                for windowed in [ahead, here] {
                    assert_eq!(
                        format!("{windowed:?}"),
                        format!("{whole:?}"),
                        "window {window}: {}",
                        String::from_utf8_lossy(body)
                    );
                }
            }
        }
    }

    /// The window reader refuses a file that nests deeper than jq reads
    /// anywhere (in a skipped value, a built one, or before the array), as
    /// the ordinary reader does, and only such a file.
    #[test]
    fn windows_refuse_what_nests_too_deep() {
        // jaq's reader recurses (the worker evaluates on a big stack too)
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(refuse_what_nests_too_deep)
            .expect("a thread")
            .join()
            .expect("no failure");
    }

    fn refuse_what_nests_too_deep() {
        let path = vec![b"items".to_vec()];
        let id = need(&[(&["[]", "id"], Level::Full)], false);
        let full = need(&[(&["[]"], Level::Full)], false);
        let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        // the array is 2 deep: an element may nest MAX - 2 more
        for (n, refused) in [(MAX_JSON_DEPTH - 2, false), (MAX_JSON_DEPTH - 1, true)] {
            for body in [
                format!(r#"{{"items": [{{"id": 1, "x": {}}}, 2]}}"#, nest(n - 1)),
                format!(r#"{{"items": [{}, {{"id": 2}}]}}"#, nest(n)),
                format!(r#"{{"skip": [{}], "items": [{{"id": 3}}]}}"#, nest(n)),
                format!(r#"{{"items": [{{"id": 4}}], "after": [{}]}}"#, nest(n)),
            ] {
                assert_eq!(
                    crate::skip::DepthScan::default()
                        .feed(body.as_bytes())
                        .is_some(),
                    refused
                );
                for element in [id.each.as_deref(), full.each.as_deref(), None] {
                    for window in [5, 4096] {
                        let read =
                            crate::ahead::read_ahead(&mut body.as_bytes(), window, |windows| {
                                let mut it = ReadElements::new(windows, &path, element);
                                loop {
                                    match it.next_judged(None) {
                                        Ok(Some(_)) => {}
                                        Ok(None) => break,
                                        Err(Unread) => return false,
                                    }
                                }
                                it.finish().is_ok()
                            });
                        assert_eq!(read, !refused, "window {window}, {n}: {}", &body[..40]);
                    }
                }
            }
        }
    }

    #[test]
    fn stream_refuses_what_it_cannot_promise() {
        let path = vec![b"items".to_vec()];
        let n = need(&[(&[], Level::Full)], false);
        for body in [
            &br#"{"items": [1], "items": [2]}"#[..],
            br#"{"items": [1]} {"items": [2]}"#,
            br#"{"items": {"a": 1}}"#,
            br#"{"items": [1, 2}"#,
            br#"[1]"#,
        ] {
            let mut it = Elements::new(body, &path, Some(&n));
            it.by_ref().for_each(drop);
            assert!(it.finish().is_err(), "{}", String::from_utf8_lossy(body));
        }
        // stopping early still checks the rest
        let body = br#"{"items": [1, 2, 3], "items": []}"#;
        let mut it = Elements::new(body, &path, Some(&n));
        assert!(it.next().is_some());
        assert!(it.finish().is_err());
    }
}
