# toolfold's Python prelude: run as `python3 -I -S -c <this file> [site dirs]`
# by the sandbox (see sandbox/python.go). It reads the run frame from the
# bridge (fd 4), runs the script with tools/call/search_tools bound, and
# sends the done frame on fd 3. Only builtin modules are imported here
# (json, threading, ast and asyncio cost 15 ms or more to import); a script
# that imports them pays for them itself.
import sys, posix, builtins, _thread, _json, _ast

try:  # an extension module (1-3 ms to load): loaded here, before the script is sent
    import resource as _resource
except ImportError:
    _resource = None

_OUT, _IN = 3, 4


class ToolError(Exception):
    """A tool call or search failed; str(e) is the message, e.tool the name."""

    def __init__(self, message, tool=""):
        super().__init__(message)
        self.message = message
        self.tool = tool


class _Ctx:  # what _json.make_scanner reads
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float
    memo = {}


_scan = _json.make_scanner(_Ctx())


def _not_json(o):
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


# markers, default, encoder, indent, key_separator, item_separator,
# sort_keys, skipkeys, allow_nan: like json.dumps(ensure_ascii=True,
# allow_nan=False, separators=(",", ":")).
_encode = _json.make_encoder({}, _not_json, _json.encode_basestring, None, ":", ",", False, False, False)
_encode_ascii = _json.make_encoder({}, _not_json, _json.encode_basestring_ascii, None, ":", ",", False, False, False)


def _dumps(v):
    """JSON bytes of v: UTF-8, or ASCII with escapes when v holds lone surrogates."""
    try:
        return "".join(_encode(v, 0)).encode()
    except UnicodeEncodeError:
        return "".join(_encode_ascii(v, 0)).encode()


def _loads(b):
    return _scan(b.decode("utf-8"), 0)[0]


def _fmt_bytes(n):
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def _fatal(msg):
    try:
        posix.write(2, f"toolfold sandbox: bridge: {msg}\n".encode())
    finally:
        posix._exit(3)


def _write(data):
    view = memoryview(data)
    while view:
        try:
            n = posix.write(_OUT, view)
        except OSError as e:
            _fatal(e)
        view = view[n:]


class _Bridge:
    def __init__(self):
        self.rd = builtins.open(_IN, "rb", buffering=1 << 16, closefd=False)
        self.lock = _thread.allocate_lock()  # the id counter and pending
        self.wlock = _thread.allocate_lock()  # whole frames on fd 3; never held with lock
        self.pending = {}
        self.next_id = 0
        self.reading = False
        self.max = 1 << 30

    def first(self):
        line = self.rd.readline()
        if not line.endswith(b"\n"):
            _fatal("no run frame")
        f = _loads(line)
        if f.get("method") != "run":
            _fatal("first bridge frame is not a run frame")
        return f["params"]

    def send(self, method, params, what, waiter):
        """Send a request; waiter.deliver(ok, value) is called with its answer."""
        with self.lock:
            self.next_id += 1
            rid = self.next_id
            data = _dumps({"id": rid, "method": method, "params": params})
            if len(data) > self.max:
                raise ToolError(
                    f"{what} of {len(data)} bytes exceed the {_fmt_bytes(self.max)} frame limit; "
                    "pass less data per call or raise sandbox.max_frame", params.get("name", "search_tools"))
            self.pending[rid] = waiter
            if not self.reading:
                self.reading = True
                _thread.start_new_thread(self.read_loop, ())
        with self.wlock:  # the reader keeps reading answers while this blocks
            _write(data + b"\n")

    def read_loop(self):
        try:
            while True:
                line = self.rd.readline()
                if not line.endswith(b"\n"):
                    _fatal("the parent closed the bridge")
                f = _loads(line)
                with self.lock:
                    w = self.pending.pop(f.get("id"), None)
                if w is None:
                    continue
                out = f.get("output")
                if out:  # what a skill the call ran printed, ahead of its result
                    sys.stdout.write(out)
                err = f.get("error")
                if err is not None:
                    w.deliver(False, err.get("message", "tool call failed"))
                else:
                    w.deliver(True, f.get("result"))
        except BaseException as e:  # a broken bridge ends the run
            _fatal(repr(e))

    def done(self, value_json=None, error=None):
        """Send done: value_json is the return value already encoded, or None."""
        if error is not None:
            if len(error["msg"]) > 4096:
                error["msg"] = error["msg"][:4096] + "…"
            data = _dumps({"method": "done", "params": {"error": error}})
        elif value_json is not None:
            data = b'{"method":"done","params":{"value":' + value_json + b"}}"
        else:
            data = b'{"method":"done","params":{}}'
        if len(data) > self.max:
            return self.done(error={"kind": "limit", "msg":
                f"the return value of {len(value_json or b'')} bytes exceeds the {_fmt_bytes(self.max)} frame limit; "
                "return less (print it, or summarize) or raise sandbox.max_frame"})
        with self.wlock:
            _write(data + b"\n")

    def notify_pending(self):
        """Tell the parent the script's code has ended with threads still running."""
        with self.wlock:
            _write(b'{"method":"pending"}\n')


class _Waiter:  # a blocking caller
    __slots__ = ("lk", "ok", "value")

    def __init__(self):
        self.lk = _thread.allocate_lock()
        self.lk.acquire()

    def deliver(self, ok, value):
        self.ok, self.value = ok, value
        self.lk.release()


class _AsyncWaiter:  # an awaiting caller: resolved on its event loop
    __slots__ = ("loop", "fut")

    def __init__(self, loop):
        self.loop, self.fut = loop, loop.create_future()

    def deliver(self, ok, value):
        try:
            self.loop.call_soon_threadsafe(self._set, ok, value)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass

    def _set(self, ok, value):
        if not self.fut.done():
            self.fut.set_result((ok, value))


_bridge = _Bridge()


def _args(fn, args, kw):
    if args is None:
        return kw if kw else None
    if not isinstance(args, dict):
        raise TypeError(f"{fn} takes keyword arguments or one dict of them, not {type(args).__name__}")
    if kw:
        args = dict(args, **kw)
    return args


def _one(name, args):
    if len(args) > 1:
        raise TypeError(f"tools.{name} takes keyword arguments, like tools.{name}(key=value), or one dict of them, not {len(args)} positional arguments")
    return args[0] if args else None


def _params(name, args):
    if not isinstance(name, str) or not name:
        raise TypeError('call needs a tool name: call("server.tool", {...})')
    p = {"name": name}
    if args is not None:
        p["args"] = args
    return p


def _result(ok, value, tool):
    if ok:
        return value
    raise ToolError(value, tool)


def _request(method, params, what, tool):
    w = _Waiter()
    _bridge.send(method, params, what, w)
    w.lk.acquire()
    return _result(w.ok, w.value, tool)


async def _arequest(method, params, what, tool):
    import asyncio
    w = _AsyncWaiter(asyncio.get_running_loop())
    _bridge.send(method, params, what, w)
    ok, value = await w.fut
    return _result(ok, value, tool)


def call(name, args=None, /, **kw):
    """call("server.tool", {"key": value}) or call("server.tool", key=value): the tool's result."""
    p = _params(name, _args("call", args, kw))
    return _request("call", p, "the arguments to " + name, name)


def acall(name, args=None, /, **kw):
    """await acall("server.tool", ...): call for asyncio code; calls run concurrently."""
    p = _params(name, _args("acall", args, kw))
    return _arequest("call", p, "the arguments to " + name, name)


def _search_params(query, detail, limit):
    p = {"query": query}
    if detail:
        p["detail"] = detail
    if limit:
        p["limit"] = limit
    return p


def search_tools(query, detail=None, limit=None):
    """search_tools("read a file", detail="summary", limit=10): the search_tools text."""
    return _request("search", _search_params(query, detail, limit), "the search query", "search_tools")


def asearch_tools(query, detail=None, limit=None):
    """await asearch_tools(...): search_tools for asyncio code."""
    return _arequest("search", _search_params(query, detail, limit), "the search query", "search_tools")


class _Tool:
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kw):
        return call(self._name, _args("tools." + self._name, _one(self._name, args), kw))

    def acall(self, *args, **kw):
        return acall(self._name, _args("tools." + self._name, _one(self._name, args), kw))

    def __repr__(self):
        return f"<tool {self._name}>"


class _Server:
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __getattr__(self, tool):
        if tool.startswith("__"):
            raise AttributeError(tool)
        return _Tool(self._name + "." + tool)

    def __getitem__(self, tool):
        return _Tool(self._name + "." + tool)

    def __repr__(self):
        return f"<server {self._name}>"


class _Tools:
    __slots__ = ()

    def __getattr__(self, server):
        if server.startswith("__"):
            raise AttributeError(server)
        return _Server(server)

    def __getitem__(self, server):
        return _Server(server)

    def __repr__(self):
        return "<tools: tools.server.tool(key=value)>"


tools = _Tools()


class _Skills:
    """skills.save(name=..., description=..., language=..., code=..., parameters=...): save a skill."""
    __slots__ = ()

    def save(self, spec=None, /, **kw):
        """Save a skill to call later as tools.skills.NAME(...); returns what was saved."""
        return _request("save_skill", _args("skills.save", spec, kw) or {}, "the skill", "skills.save")

    def asave(self, spec=None, /, **kw):
        """await skills.asave(...): save for asyncio code."""
        return _arequest("save_skill", _args("skills.asave", spec, kw) or {}, "the skill", "skills.save")

    def __repr__(self):
        return "<skills: skills.save(name=..., description=..., language=..., code=...)>"


skills = _Skills()


class _TreeFinder:
    """Finds the packages servers and skills (the code API, read-only in
    the working directory, which -I keeps off sys.path) and nothing else."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name not in ("servers", "skills"):
            return None
        return sys.modules["_frozen_importlib_external"].PathFinder.find_spec(name, [posix.getcwd()])


def _install_tree():
    """The module toolfold (what the code API's functions call: the same
    bridge as tools) and the finder of servers and skills."""
    m = type(sys)("toolfold")
    m.__dict__.update(call=call, acall=acall, tools=tools, search_tools=search_tools,
                      asearch_tools=asearch_tools, ToolError=ToolError, skills=skills)
    sys.modules["toolfold"] = m
    sys.meta_path.insert(0, _TreeFinder)


class _Return(BaseException):
    """Raised for a top-level `return value` (the AST is rewritten)."""

    def __init__(self, value=None):
        self.value = value


_RETURN = "__toolfold_return__"
_SCOPES = (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.ClassDef, _ast.Lambda)


def _rewrite_returns(node):
    """Replace every `return` outside a def or class by `raise __toolfold_return__(value)`."""
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        stmts = getattr(node, field, None)
        if not stmts:
            continue
        for i, st in enumerate(stmts):
            if isinstance(st, _ast.Return):
                value = st.value if st.value is not None else _ast.Constant(value=None)
                fn = _ast.Name(id=_RETURN, ctx=_ast.Load())
                new = _ast.Raise(exc=_ast.Call(func=fn, args=[value], keywords=[]), cause=None)
                for n in (fn, new, new.exc):
                    n.lineno, n.col_offset = st.lineno, st.col_offset
                    n.end_lineno, n.end_col_offset = st.end_lineno, st.end_col_offset
                stmts[i] = new
            elif not isinstance(st, _SCOPES):
                _rewrite_returns(st)


def _script_line(tb):
    line = 0
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<script>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _error(e):
    if isinstance(e, ToolError):
        msg = e.message
    else:
        text = str(e)
        msg = type(e).__name__ + (": " + text if text else "")
    return {"kind": "runtime", "line": _script_line(e.__traceback__), "msg": msg}


# What a script that tries the network is told. The sandbox's kernel
# layers (an empty network namespace, seccomp and Landlock) are what keep
# it off the network; this only turns their bare "Operation not permitted"
# or a resolver's gaierror into words that say what to do. The socket
# module is patched as it is imported (by the script or a library: urllib,
# http.client, asyncio, requests all go through it): its name lookups and
# its inet sockets raise PermissionError(EPERM) saying so. An audit hook
# would also see _socket, but Python calls it for every audited event,
# each id() among them (copy.deepcopy ran about 45% slower); _socket used
# directly gets the kernel's bare EPERM.
_NO_NETWORK = "the sandbox has no network: call a tool instead (search_tools finds one)"


def _refuse_network(*args, **kw):
    raise PermissionError(1, _NO_NETWORK)


def _patch_socket(m):
    for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr", "getnameinfo"):
        setattr(m, name, _refuse_network)
    init = m.socket.__init__

    def __init__(self, family=-1, type=-1, proto=-1, fileno=None):
        # -1 without a descriptor is AF_INET; AF_UNIX (asyncio's socketpair)
        # and sockets made from a descriptor stay.
        if fileno is None and family in (-1, 2, 10):
            _refuse_network()
        init(self, family, type, proto, fileno)

    m.socket.__init__ = __init__


class _NetLoader:
    """socket's own loader, and _patch_socket once the module has run."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _patch_socket(module)

    def __getattr__(self, name):  # get_source and the like, for tracebacks
        return getattr(self._loader, name)


class _NetFinder:
    """Finds socket as the path finder does, with _NetLoader around its loader."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "socket":
            return None
        spec = sys.modules["_frozen_importlib_external"].PathFinder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _NetLoader(spec.loader)
        return spec


_MEMORY_ARG = "--toolfold-memory="


def _limit_memory(extra):
    """Lower RLIMIT_DATA to what the interpreter uses now plus the script's share."""
    resource = _resource
    if resource is None:
        return
    try:
        with builtins.open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmData:"):
                    used = int(line.split()[1]) * 1024
                    break
            else:
                return
        lim = used + extra
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard == resource.RLIM_INFINITY or lim < hard:
            resource.setrlimit(resource.RLIMIT_DATA, (lim, lim))
    except (OSError, ValueError):
        pass  # the parent's limit stays


def _run(code, args=None, check=False):
    try:
        tree = compile(code, "<script>", "exec", _ast.PyCF_ONLY_AST | _ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        _rewrite_returns(tree)
        co = compile(tree, "<script>", "exec", _ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except (SyntaxError, ValueError) as e:
        line = getattr(e, "lineno", 0) or 0
        msg = getattr(e, "msg", None) or str(e)
        if getattr(e, "text", None) and getattr(e, "offset", None):
            msg += f" (column {e.offset})"
        return None, {"kind": "syntax", "line": line, "msg": msg}
    if check:
        return None, None
    g = {"__name__": "__main__", "__builtins__": builtins, _RETURN: _Return,
         "tools": tools, "call": call, "acall": acall, "search_tools": search_tools,
         "asearch_tools": asearch_tools, "ToolError": ToolError, "skills": skills}
    if args is not None:
        g["args"] = args
    try:
        if co.co_flags & 0x80:  # CO_COROUTINE: top-level await
            import asyncio
            asyncio.run(eval(co, g))
        else:
            exec(co, g)
    except _Return as r:
        return r.value, None
    except SystemExit as e:
        if e.code is None or e.code == 0:
            return None, None
        return None, {"kind": "runtime", "line": _script_line(e.__traceback__), "msg": f"SystemExit: {e.code}"}
    except MemoryError:
        raise
    except BaseException as e:
        return None, _error(e)
    return None, None


def _drain():
    """Wait, as python does when it exits, for the script's non-daemon
    threads and threading's exit calls (an executor's workers). The run's
    limits bound the wait; daemon threads are not waited for."""
    th = sys.modules.get("threading")
    if th is None:
        return  # no thread but the bridge's (_thread, like a daemon)
    main = th.main_thread()
    if any(t is not main and not t.daemon and t.is_alive() for t in th.enumerate()):
        _bridge.notify_pending()
    try:
        th._shutdown()  # what the interpreter calls at exit, from the main thread
    except Exception:
        for t in th.enumerate():
            if t is not main and not t.daemon and t is not th.current_thread():
                t.join()


def _flush():
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except BaseException:
            pass


def _main():
    # What needs no script is done before its run frame is read: in a warm
    # child, while it waits.
    # argv: the run's memory limit, then site-packages.
    memory = 0
    if len(sys.argv) > 1 and sys.argv[1].startswith(_MEMORY_ARG):
        memory = int(sys.argv.pop(1)[len(_MEMORY_ARG):] or 0)
    sys.path.extend(sys.argv[1:])  # site-packages, without running site
    builtins.exit = builtins.quit = sys.exit  # site would have defined them
    sys.meta_path.insert(0, _NetFinder)
    _install_tree()
    sys.argv = ["script"]
    sys.stdout.reconfigure(line_buffering=True)
    # Once down a run's path (compile, the return rewrite, exec, encode),
    # in a throwaway namespace: the first pass costs the process more (page
    # faults on the interpreter's code) than every later one.
    _run("x = [1]\nreturn {'x': x}")
    _dumps({"x": [1]})
    if memory:
        _limit_memory(memory)
    p = _bridge.first()
    lim = p.get("limits") or {}
    _bridge.max = lim.get("max_frame_bytes") or _bridge.max
    if lim.get("memory_bytes") and lim["memory_bytes"] != memory:
        _limit_memory(lim["memory_bytes"])
    try:
        value, err = _run(p["code"], p.get("args"), p.get("check", False))
        if err is None and value is not None:
            try:
                value = _dumps(value)
            except (TypeError, ValueError, RecursionError) as e:
                value, err = None, {"kind": "runtime", "line": 0, "msg": f"cannot return this value: {e}"}
        _drain()
    except MemoryError:
        _flush()
        posix.write(2, b"MemoryError\n")  # the parent reports the memory limit
        posix._exit(1)
    _flush()
    _bridge.done(value, err)
    if p.get("hold") and not _bridge.pending:
        # The parent answers at done and then stops the run: wait for it
        # (30 s at most; holdMax) rather than exit, so that the exit's
        # teardown is not on the CPUs while it answers. Not with requests
        # of daemon threads in flight: the parent may be serving those
        # before it reads done, and the exit ends the run as before.
        held = _thread.allocate_lock()
        held.acquire()
        held.acquire(timeout=30)
    posix._exit(0)


_main()
