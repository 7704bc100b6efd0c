// Compiled (not run) against the installed package: the server entry's public API.
import http from 'node:http';
import {
  answerUpstreamGaveUp,
  type InboundRequest,
  inboundRequest,
  type RetryLayerOptions,
  retryLayer,
  upstreamGaveUp,
} from 'axios-safe-retry/server';

const options: RetryLayerOptions = { maxDeadlineMs: 30_000, marginMs: 20 };
const layer = retryLayer(options);
export const onError = retryLayer.errorHandler();

export const server = http.createServer((req, res) =>
  layer(req, res, () => {
    const inbound: InboundRequest | undefined = inboundRequest();
    const left: number | undefined = inbound?.deadlineLeftMs;
    Promise.reject(new Error(`${left}`)).catch((error: unknown) => {
      if (upstreamGaveUp(error)) answerUpstreamGaveUp(res);
      else res.writeHead(500).end();
    });
  }),
);
