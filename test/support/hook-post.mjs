#!/usr/bin/env node
// A plain command hook for the harness tests: reads the hook payload on stdin, POSTs it to the URL
// given as the first argument and prints the reply body (nothing when the reply is `{}`, because
// some vendors reject replies that do not match their strict output schema). Fails open: any error
// prints nothing and exits 0, like a well-behaved hook must.
const url = process.argv[2];
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
try {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: Buffer.concat(chunks),
    signal: AbortSignal.timeout(10_000),
  });
  const text = (await res.text()).trim();
  if (res.ok && text && text !== '{}') process.stdout.write(text);
} catch (error) {
  process.stderr.write(`hook-post: ${String(error)}\n`);
}
