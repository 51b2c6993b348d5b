/**
 * The Redis side of queued audits: checking a `redis://` URL, and reaching the server (BullMQ
 * opens its own ioredis connections from the same URL).
 *
 * @module
 */
import { Redis } from 'ioredis'

/**
 * The URL without its credentials, for messages and logs: `redis://user:secret@host:6379/0` becomes
 * `redis://***@host:6379/0`. A string that is not a URL is not shown at all (it may be a password
 * pasted in the wrong place).
 */
export const redactUrl = (url: string): string => {
  try {
    const u = new URL(url)
    const auth = u.username !== '' || u.password !== '' ? '***@' : ''
    return `${u.protocol}//${auth}${u.host}${u.pathname === '/' ? '' : u.pathname}`
  } catch {
    return '(the --queue value)'
  }
}

/** A message naming what is wrong with the URL, or null (redis:// or rediss://, a host). Never repeats credentials. */
export const checkRedisUrl = (url: string): string | null => {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return 'the --queue value is not a URL; expected redis://host:port or rediss://:password@host:port (e.g. redis://127.0.0.1:6379)'
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') return `${redactUrl(url)} is not a redis:// or rediss:// URL (expected redis://host:port)`
  if (u.hostname === '') return `${redactUrl(url)} names no host (expected redis://host:port)`
  return null
}

/** BullMQ's connection options for a URL (blocking commands need maxRetriesPerRequest null). */
export const connectionFor = (url: string): { url: string; maxRetriesPerRequest: null } => ({ url, maxRetriesPerRequest: null })

/** Whether Redis answers PING at `url` within `timeoutMs`: null, or why not (one line). */
export const pingRedis = async (url: string, timeoutMs = 5000): Promise<string | null> => {
  const bad = checkRedisUrl(url)
  if (bad !== null) return bad
  const c = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: timeoutMs, enableOfflineQueue: false })
  let cause: Error | undefined
  c.on('error', (e: Error) => (cause ??= e)) // the socket's own error (ECONNREFUSED, ENOTFOUND) names the cause best
  try {
    await c.connect()
    return (await c.ping()) === 'PONG' ? null : `Redis at ${redactUrl(url)} did not answer PING`
  } catch (e) {
    return `cannot reach Redis at ${redactUrl(url)} (${scrub((cause ?? (e as Error)).message || 'connection failed', url)})`
  } finally {
    c.disconnect()
  }
}

/** An error message with any credential of the URL removed (a driver may quote what it was given). */
export const scrub = (message: string, url: string): string => {
  let out = message
  try {
    const u = new URL(url)
    for (const secret of [u.password, decodeURIComponent(u.password), u.username])
      if (secret.length >= 3) out = out.split(secret).join('***')
  } catch {
    // not a URL: nothing to remove
  }
  return out.split(url).join(redactUrl(url))
}
