/**
 * Firestore for the local stack where Google's emulator (a Java 21 JAR) cannot run: the
 * JavaScript emulator from @firestore-emulator/server, which speaks the real gRPC protocol.
 * Its published version gets several semantics wrong; the fixes live in stack/patches and are
 * applied on install by patch-package (root package.json). test/firestore/conformance.stack.test.ts
 * pins the semantics it must share with Google's emulator.
 *
 * Like Google's emulator, one port serves both gRPC (HTTP/2) and a small HTTP/1.1 endpoint:
 *   DELETE /emulator/v1/projects/{project}/databases/{database}/documents   deletes every document
 *   GET /                                                                   answers 200 "Ok"
 * Each connection is routed by its first bytes: the HTTP/2 connection preface goes to the gRPC
 * server, anything else to the HTTP server. Everything listens on loopback only, and the HTTP
 * endpoint answers only a Host of 127.0.0.1 or localhost with its port (403 otherwise).
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createNetServer, type Socket } from "node:net";
import { Duplex } from "node:stream";
import type { Faultable, FirestoreFault } from "./faults";
import { isLoopbackHost, notLoopbackHost } from "./loopbackHost";

const { FirestoreServer } = require("@firestore-emulator/server") as {
  FirestoreServer: new () => {
    createConnectionInjector(): { injectConnection(connection: Duplex): void };
    stop(): void;
    state: { clear(): void; clearDatabase(project: string, database: string): void };
  };
};

export interface FirestoreFallback extends Faultable<FirestoreFault> {
  /** The port it listens on (the one asked for, or the one chosen for port 0). */
  port: number;
  stop(): Promise<void>;
  /** Deletes every document of every project. */
  clear(): void;
}

/** The first bytes of every HTTP/2 connection (RFC 9113, 3.4). */
const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

const CLEAR_PATH = /^\/emulator\/v1\/projects\/([^/]+)\/databases\/([^/]+)\/documents\/?$/;

/**
 * The connection as a stream that starts with `head` (bytes already read from it) and goes on with
 * the socket's data. Node's http server accepts any Duplex as a connection; handed the net.Socket
 * itself it would read its handle directly and miss the bytes already read. (An HTTP/2 session
 * takes the socket's buffered bytes first, so gRPC gets the socket itself: a Duplex in between
 * costs a pass through JavaScript on every write, about a tenth of the emulator's CPU per call.)
 */
function replayed(socket: Socket, head: Buffer): Duplex {
  const stream = new Duplex({
    read: () => void socket.resume(),
    write: (chunk, encoding, done) => void socket.write(chunk, encoding, done),
    final: (done) => void socket.end(done),
    destroy: (error, done) => (socket.destroy(), done(error)),
  });
  stream.push(head);
  socket.on("data", (chunk: Buffer) => void (stream.push(chunk) || socket.pause()));
  socket.once("end", () => stream.push(null));
  socket.once("close", () => stream.destroy());
  return stream;
}

export async function startFirestoreFallback(port: number, host = "127.0.0.1"): Promise<FirestoreFallback> {
  const firestore = new FirestoreServer();
  const grpc = firestore.createConnectionInjector();

  let boundPort = port; // the port chosen, once listening (port 0: an ephemeral one)
  const http = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const clear = CLEAR_PATH.exec(path);
    // A page that rebinds its name to 127.0.0.1 could otherwise clear every document (stack/loopbackHost.ts).
    if (!isLoopbackHost(req.headers.host, boundPort)) {
      res.writeHead(403, { "content-type": "application/json", connection: "close" }).end(JSON.stringify({ error: notLoopbackHost(req.headers.host, boundPort) }));
    } else if (req.method === "DELETE" && clear) {
      firestore.state.clearDatabase(decodeURIComponent(clear[1]), decodeURIComponent(clear[2]));
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    } else if (req.method === "GET" && path === "/") {
      res.writeHead(200, { "content-type": "text/plain" }).end("Ok\n");
    } else {
      res.writeHead(404, { "content-type": "application/json" });
      const clearing = "DELETE /emulator/v1/projects/{project}/databases/{database}/documents";
      res.end(JSON.stringify({ error: `${req.method} ${path}: this emulator speaks gRPC; over HTTP it only answers ${clearing}` }));
    }
  });

  const sockets = new Set<Socket>();
  // stack/faults.ts: "down" closes every connection at once; "hang" holds new ones unserved.
  let fault: FirestoreFault | null = null;
  const held = new Set<Socket>();
  const front = createNetServer((socket) => {
    if (fault?.mode === "down") {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.setNoDelay(true); // as the servers would do for a socket of their own (no Nagle delays)
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy()); // a client that goes away is not our error
    if (fault?.mode === "hang") {
      held.add(socket); // accepted, never read: the client waits for an answer
      socket.once("close", () => held.delete(socket));
      return;
    }
    let received = Buffer.alloc(0);
    const route = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const compared = Math.min(received.length, HTTP2_PREFACE.length);
      const isHttp2 = received.subarray(0, compared).equals(HTTP2_PREFACE.subarray(0, compared));
      if (isHttp2 && received.length < HTTP2_PREFACE.length) return; // not sure yet: wait for more bytes
      socket.off("data", route);
      socket.pause();
      if (isHttp2) {
        // Node's HTTP/2 session first takes what the socket holds already, then reads its handle.
        socket.unshift(received);
        grpc.injectConnection(socket);
      } else http.emit("connection", replayed(socket, received));
    };
    socket.on("data", route);
  });

  await new Promise<void>((resolve, reject) => {
    front.once("error", reject);
    front.listen(port, host, () => (front.off("error", reject), resolve()));
  });
  const address = front.address();
  boundPort = typeof address === "object" && address ? address.port : port;

  return {
    port: boundPort,
    stop: async () => {
      const closed = new Promise<void>((resolve) => front.close(() => resolve()));
      firestore.stop(); // ends every gRPC session
      for (const socket of sockets) socket.destroy();
      http.close();
      await closed;
    },
    clear: () => firestore.state.clear(),
    setFault: (next) => {
      // A fault ends every open connection, so that it reaches clients already connected; clearing
      // it frees the connections it held (their clients then reconnect).
      fault = next;
      for (const socket of next ? sockets : held) socket.destroy();
      held.clear();
    },
  };
}
