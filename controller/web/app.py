"""The FastAPI application: a static page, a JSON API over ``Table``, live events, and the photos.

Reads are open to anyone on the network; every request that changes the table goes through
:func:`_host_only` (same-origin check, then the host's session and CSRF token or the PIN header) and
is refused with a logged reason otherwise. The app holds no game logic: it serialises what the table
returns and turns the table's errors into HTTP answers that name the problem.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles

from controller.i18n import LANGUAGES, language_from_header, messages
from controller.summary import localise, localise_ended
from controller.web.access import (
    COOKIE_NAME,
    CSRF_HEADER,
    DEVICE_COOKIE,
    PIN_HEADER,
    HostAccess,
    Refused,
    same_origin,
)
from controller.web.bodies import (
    Acknowledgement,
    Confirmation,
    Correction,
    CourtConversion,
    Login,
    NewSession,
    ParryCard,
    ReleaseAnswer,
    Round,
    TrayPlacement,
    TrayWord,
)
from controller.web.errors import ApiError, in_language, invalid_request, table_error
from controller.web.events import EventHub
from controller.web.files import NotServable, resolve_data_file
from controller.web.guard import MAX_BODY_BYTES, BodyLimit, HostCheck
from controller.web.join import join_url, qr_svg
from controller.web.words import game_words

STATIC_DIR = Path(__file__).resolve().parent / "static"
log = logging.getLogger("controller.web.access")

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def create_app(table: Any, data_dir: Path, access: HostAccess, *, keepalive_s: float = 15.0,
               allowed_hosts: list[str] | tuple[str, ...] = (), listen_host: str | None = None,
               max_body_bytes: int = MAX_BODY_BYTES) -> FastAPI:
    """The web app for one table. ``data_dir`` is the only directory whose images are served.

    Requests must name this machine in ``Host`` (its own names and addresses, plus ``allowed_hosts``;
    ``"*"`` allows any) and carry at most ``max_body_bytes`` of body (``controller.web.guard``)."""
    hub = EventHub(table, keepalive_s=keepalive_s)
    change_lock = threading.Lock()  # one change at a time: two taps on Release must not race

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        hub.start()
        try:
            yield
        finally:
            hub.close()

    app = FastAPI(title="Wallenstein tower station", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.hub = hub
    app.state.access = access
    # Added last runs first: the Host check, then the body limit, then FastAPI.
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    app.add_middleware(HostCheck, extra=allowed_hosts, listen_host=listen_host)

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Callable[[Request], Any]) -> Response:
        response: Response = await call_next(request)
        for key, value in SECURITY_HEADERS.items():
            response.headers.setdefault(key, value)
        return response

    @app.exception_handler(ApiError)
    async def api_error(request: Request, err: ApiError) -> JSONResponse:
        return JSONResponse({**err.extra, "error": in_language(request, err.message), "field": err.field},
                            status_code=err.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, err: RequestValidationError) -> JSONResponse:
        message, field = invalid_request(err)
        return JSONResponse({"error": in_language(request, message), "field": field}, status_code=422)

    @app.exception_handler(Refused)
    async def refused(request: Request, err: Refused) -> JSONResponse:
        log.warning("refused %s %s from %s: %s", request.method, request.url.path, _client(request),
                    err.message)
        return JSONResponse({"error": in_language(request, err.message), "field": None}, status_code=err.status)

    def _check_origin(request: Request) -> None:
        if not same_origin(request.headers.get("origin"), request.headers.get("referer"),
                           request.headers.get("host"), request.url.scheme):
            raise Refused(403, "cross-site request refused")

    def _host_only(request: Request) -> None:
        _check_origin(request)
        access.authorise(cookie=request.cookies.get(COOKIE_NAME), csrf=request.headers.get(CSRF_HEADER),
                         pin=request.headers.get(PIN_HEADER), client=_client(request),
                         device=request.cookies.get(DEVICE_COOKIE))

    def _change(action: Callable[[], Any]) -> Any:
        with change_lock:
            try:
                return action()
            except (Refused, ApiError):
                raise
            except Exception as err:  # the table's errors become answers that name the problem
                logging.getLogger("controller.web").warning("table refused: %s", err)
                raise table_error(err) from err

    # -- pages ------------------------------------------------------------------------------------
    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/report", include_in_schema=False)
    def report_page() -> FileResponse:
        return FileResponse(STATIC_DIR / "report.html", headers={"Cache-Control": "no-cache"})

    @app.get("/api/report")
    def report(request: Request, session: int | None = None) -> Any:
        """The luck report, its plots drawn in the browser's language."""
        try:
            return table.report(session, language_from_header(request.headers.get("accept-language")))
        except ValueError as err:  # no session yet, or no such session
            raise ApiError(404, str(err)) from err

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(status_code=204)

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/data/{relative:path}")
    def data_file(relative: str, request: Request) -> FileResponse:
        try:
            path, media_type = resolve_data_file(data_dir, relative)
        except NotServable as err:
            log.warning("refused %s %s from %s: %s", request.method, request.url.path, _client(request), err)
            raise ApiError(404, "no such image") from err
        return FileResponse(path, media_type=media_type, headers={"Cache-Control": "max-age=3600"})

    # -- reading ----------------------------------------------------------------------------------
    @app.get("/api/state")
    def state(request: Request) -> dict[str, Any]:
        token = request.cookies.get(COOKIE_NAME)
        host = access.is_host(token)
        try:
            status, history = table.status(), table.history()
        except Exception as err:
            raise table_error(err) from err
        lang = language_from_header(request.headers.get("accept-language"))  # the page's language
        if lang != "en":
            status = {**status, "drop": photo_in(localise(status.get("drop"), lang), lang),
                      "ended": localise_ended(status.get("ended"), lang)}
            history = [photo_in(localise(view, lang), lang) for view in history]
        return {"status": status, "history": history, "host": host,
                "csrf": access.csrf_for(token) if host and token else None}

    @app.get("/api/join")
    def join(request: Request) -> dict[str, str]:
        """The page's address for watchers' phones (the QR code on the host's screen shows it)."""
        return {"url": join_url(request.url.scheme, request.headers.get("host"))}

    @app.get("/api/join.svg")
    def join_qr(request: Request) -> Response:
        """The page's address as a QR code (SVG, drawn by segno)."""
        return Response(qr_svg(join_url(request.url.scheme, request.headers.get("host"))),
                        media_type="image/svg+xml", headers={"Cache-Control": "no-cache"})

    @app.get("/api/i18n")
    def i18n(request: Request, lang: str | None = None) -> JSONResponse:
        """The page's words in the browser's language (``Accept-Language``, or ``?lang=de``): {English: translation}."""
        chosen = lang if lang in LANGUAGES else language_from_header(request.headers.get("accept-language"))
        return JSONResponse({"lang": chosen, "messages": messages(chosen)},
                            headers={"Vary": "Accept-Language", "Cache-Control": "no-cache"})

    @app.get("/api/words")
    def words() -> JSONResponse:
        """The game's word lists (colours, kinds of battle, events, buildings, bonus tiles) from the engine."""
        return JSONResponse(game_words(), headers={"Cache-Control": "no-cache"})

    @app.get("/api/events")
    def events() -> StreamingResponse:
        return StreamingResponse(hub.stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    # -- the host ---------------------------------------------------------------------------------
    @app.post("/api/host/login")
    def login(body: Login, request: Request) -> JSONResponse:
        _check_origin(request)
        device = request.cookies.get(DEVICE_COOKIE)
        access.check_pin(body.pin, _client(request), device)
        token, csrf = access.open_session()
        response = JSONResponse({"host": True, "csrf": csrf})
        secure = request.url.scheme == "https"
        response.set_cookie(COOKIE_NAME, token, httponly=True, samesite="strict", path="/", secure=secure)
        if not (device and access.is_device(device)):  # this device is not held up by a PIN guesser
            response.set_cookie(DEVICE_COOKIE, access.new_device(), httponly=True, samesite="strict", path="/",
                                secure=secure, max_age=400 * 24 * 3600)
        log.info("host logged in from %s", _client(request))
        return response

    @app.post("/api/host/logout")
    def logout(request: Request) -> JSONResponse:
        _check_origin(request)
        access.close_session(request.cookies.get(COOKIE_NAME))
        response = JSONResponse({"host": False})
        response.delete_cookie(COOKIE_NAME, path="/")
        return response

    @app.post("/api/session", dependencies=[Depends(_host_only)])
    def new_session(body: NewSession) -> Any:
        """A new game (``tower session new`` cannot run while the server holds the data directory)."""
        return _change(lambda: table.new_session(body.players, body.emperors_court, body.force))

    @app.post("/api/round", dependencies=[Depends(_host_only)])
    def set_round(body: Round) -> Any:
        """This round's event card, bonus tiles and each immune player's favor card, filled into every battle."""
        return _change(lambda: table.set_round(body.event or None, body.bonus_tiles, body.immune))

    @app.post("/api/undo", dependencies=[Depends(_host_only)])
    def undo(body: Confirmation) -> Any:
        """Take back the last between-battle action (an undo record; nothing is erased)."""
        return _change(lambda: table.undo(body.who))

    @app.post("/api/session/end", dependencies=[Depends(_host_only)])
    def end_session(body: Confirmation) -> Any:
        """The game's end: its summary is recorded and shown to everyone."""
        return _change(lambda: table.end_session(body.who))

    @app.post("/api/parry", dependencies=[Depends(_host_only)])
    def keep_parry_card(body: ParryCard) -> Any:
        """Who keeps favor card #4: the session marks revolts against them, and the one they win spends it."""
        return _change(lambda: table.keep_parry_card(body.player or None))

    @app.post("/api/battles", dependencies=[Depends(_host_only)])
    def plan(battle: dict[str, Any]) -> Any:
        result = _change(lambda: table.plan(battle))
        hub.publish({"type": "web_planned", "drop_id": result.get("drop_id")})
        return result

    @app.post("/api/drops/{drop_id}/release", dependencies=[Depends(_host_only)])
    def release(drop_id: int) -> Any:
        hub.publish({"type": "web_release_started", "drop_id": drop_id})
        try:
            return _change(lambda: table.release(drop_id))
        finally:
            hub.publish({"type": "web_release_finished", "drop_id": drop_id})

    @app.post("/api/drops/{drop_id}/cancel", dependencies=[Depends(_host_only)])
    def cancel(drop_id: int) -> Any:
        """A battle planned by mistake, given up before its release: its cubes go back."""
        return _change(lambda: table.cancel(drop_id))

    @app.post("/api/court/convert", dependencies=[Depends(_host_only)])
    def court_convert(body: CourtConversion) -> Any:
        """A dice-tower card: a player's own cubes in the tray become courtiers (Emperor's Court)."""
        return _change(lambda: table.court_convert(body.player, body.cubes))

    @app.post("/api/tray/place", dependencies=[Depends(_host_only)])
    def tray_place(body: TrayPlacement) -> Any:
        """A favor card (#3, #8, #14) or the bonus-card benefit: armies from a supply into the tray."""
        return _change(lambda: table.place_into_tray(body.player, body.armies, body.source, who=body.who,
                                                     card=body.card))

    @app.post("/api/tray/confirm", dependencies=[Depends(_host_only)])
    def tray_confirm(body: TrayWord) -> Any:
        """The host's word on the tray where the camera misreads it: as expected, or these counts."""
        if body.counts is None:
            return _change(lambda: table.confirm_tray(body.who, body.note))
        counts = body.counts
        return _change(lambda: table.set_tray(counts, body.who, body.note))

    @app.post("/api/drops/{drop_id}/correct", dependencies=[Depends(_host_only)])
    def correct(drop_id: int, body: Correction) -> Any:
        result = _change(lambda: table.correct(drop_id, body.counts, body.who))
        hub.publish({"type": "web_corrected", "drop_id": drop_id})
        return result

    @app.post("/api/drops/{drop_id}/answer", dependencies=[Depends(_host_only)])
    def answer(drop_id: int, body: Correction) -> Any:
        """The host's answer to "Is it 6 or 7 red?": the counts of the colours asked about only."""
        result = _change(lambda: table.answer(drop_id, body.counts, body.who))
        hub.publish({"type": "web_corrected", "drop_id": drop_id})
        return result

    @app.post("/api/drops/{drop_id}/confirm", dependencies=[Depends(_host_only)])
    def confirm(drop_id: int, body: Confirmation) -> Any:
        """A doubted reading accepted as it is (kept in the log as a correction that changes nothing)."""
        result = _change(lambda: table.confirm(drop_id, body.who))
        hub.publish({"type": "web_corrected", "drop_id": drop_id})
        return result

    @app.post("/api/drops/{drop_id}/release-answer", dependencies=[Depends(_host_only)])
    def release_answer(drop_id: int, body: ReleaseAnswer) -> Any:
        """The host says whether the funnel emptied, where the station could not tell after a crash."""
        return _change(lambda: table.confirm_release(drop_id, body.fell, body.who))

    @app.post("/api/resume", dependencies=[Depends(_host_only)])
    def resume() -> Any:
        """Finish a drop whose reading failed (a camera error): read the tray again, never release."""
        result = _change(table.resume)
        hub.publish({"type": "web_resumed", "drop_id": (result or {}).get("drop_id")})
        return result

    @app.post("/api/records/acknowledge", dependencies=[Depends(_host_only)])
    def acknowledge(body: Acknowledgement) -> Any:
        """The host has seen the damage a verification found: recorded, and the station writes again."""
        result = _change(lambda: table.acknowledge(body.who, body.note))
        hub.publish({"type": "damage_acknowledged", "drop_id": None})
        return result

    return app


def photo_in(view: Any, lang: str) -> Any:
    """A drop view whose annotated photo is the one captioned in ``lang``, where the station wrote one
    (``annotated_in``; photos taken before it wrote them keep their English caption)."""
    if isinstance(view, dict) and (view.get("annotated_in") or {}).get(lang):
        return {**view, "annotated": view["annotated_in"][lang]}
    return view
