"""A TCP relay that can leave connections half-open, for tests of what a peer does when its
connection dies without either end closing it (a cut cable, a NAT that forgot it).

    half_open_relay.py --listen PORT --target HOST:PORT

On SIGUSR1 every connection open at that moment goes silent: nothing more is forwarded either
way, and when its client end closes, its target end is left open, as after a partition.
Connections made later are relayed as usual. It prints one line per event, flushed:
`accepted N`, `frozen N` and `target closed N` (the target closed connection N).
"""
import argparse
import signal
import socket
import threading

parser = argparse.ArgumentParser()
parser.add_argument("--listen", type=int, required=True)
parser.add_argument("--target", required=True)
arguments = parser.parse_args()
target_host, target_port = arguments.target.rsplit(":", 1)

lock = threading.Lock()
connections = {}  # number -> {"frozen": bool}


def say(line):
    with lock:
        print(line, flush=True)


def pump(number, source, destination, from_target):
    state = connections[number]
    while True:
        try:
            data = source.recv(65536)
        except OSError:
            data = b""
        if not data:
            break
        if not state["frozen"]:
            try:
                destination.sendall(data)
            except OSError:
                break
    if from_target:
        say(f"target closed {number}")
    if not state["frozen"]:
        try:
            destination.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def freeze(signum, frame):
    for number, state in list(connections.items()):
        if not state["frozen"]:
            state["frozen"] = True
            say(f"frozen {number}")


signal.signal(signal.SIGUSR1, freeze)
listener = socket.create_server(("127.0.0.1", arguments.listen))
count = 0
while True:
    try:
        client, _ = listener.accept()
    except InterruptedError:
        continue
    count += 1
    target = socket.create_connection((target_host, int(target_port)))
    connections[count] = {"frozen": False}
    say(f"accepted {count}")
    threading.Thread(target=pump, args=(count, client, target, False), daemon=True).start()
    threading.Thread(target=pump, args=(count, target, client, True), daemon=True).start()
