import { describe, expect, it } from 'vitest';
import { RouteMethods } from './methods.js';

describe('RouteMethods', () => {
  it("tells a path's methods, with parameters matching one segment", () => {
    const m = new RouteMethods();
    m.add('/api/v1/calls/:callId', ['GET', 'HEAD']);
    m.add('/api/v1/calls/:callId/series', 'GET');
    m.add('/api/v1/lab/agents/:id', 'DELETE');
    expect(m.allowed('/api/v1/calls/a.b@c?from=1')).toEqual(['GET', 'HEAD']);
    expect(m.allowed('/api/v1/calls/x/series/')).toEqual(['GET']);
    expect(m.allowed('/api/v1/lab/agents/7')).toEqual(['DELETE']);
  });

  it('finds none for a path no route has', () => {
    const m = new RouteMethods();
    m.add('/api/v1/calls/:callId', 'GET');
    expect(m.allowed('/api/v1/calls/x/y')).toEqual([]);
    expect(m.allowed('/api/v1/callsx')).toEqual([]);
    expect(m.allowed('/')).toEqual([]);
  });
});
