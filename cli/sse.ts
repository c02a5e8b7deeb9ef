// A server-sent events reader for `svc listen`, by hand: no SSE package is installed, and the
// format (text/event-stream, WHATWG HTML §9.2) is a few line rules. `retry` is not used and is
// ignored; so are comments, which carry the gateway's keep-alives. `event` names the gateway's last
// message (stream_ended); every other message is an event of the project.

export interface SseMessage {
  /** The message's `event` field; 'message' when it has none. */
  event: string;
  data: string;
  /** The last `id` seen so far (it persists across messages), for Last-Event-ID on reconnect. */
  lastEventId: string;
}

export interface SseParser {
  /** Feeds decoded text as it arrives; complete messages go to the callback. */
  push(text: string): void;
  /** The last `id` seen, even on a message without data. */
  readonly lastEventId: string;
}

export function createSseParser(onMessage: (m: SseMessage) => void, lastEventId = ''): SseParser {
  let buffer = '';
  let data: string[] = [];
  let event = '';

  function line(text: string): void {
    if (text === '') {
      if (data.length > 0) onMessage({ event: event || 'message', data: data.join('\n'), lastEventId });
      data = [];
      event = '';
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) lastEventId = value;
  }

  return {
    push(text: string) {
      buffer += text;
      for (;;) {
        const end = buffer.search(/\r\n|\n|\r/);
        // A lone \r at the very end may be the first half of \r\n: wait for the next chunk.
        if (end === -1 || (end === buffer.length - 1 && buffer[end] === '\r')) return;
        const width = buffer.startsWith('\r\n', end) ? 2 : 1;
        line(buffer.slice(0, end));
        buffer = buffer.slice(end + width);
      }
    },
    get lastEventId() {
      return lastEventId;
    },
  };
}
