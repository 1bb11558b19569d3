// One table in the shape of upstream's requestinfo_test.go: method, url and every expected field.
import { describe, expect, it } from 'vitest';
import { isLongRunning, isMutating, newRequestInfo, RequestPathError } from '../../runtime/machinery/request-info.js';

type Row = [method: string, url: string, verb: string, prefix: string, group: string, version: string, namespace: string, resource: string, subresource: string, name: string, parts: string[]];

const resourceRequests: Row[] = [
  // resource paths
  ['GET', '/api/v1/namespaces', 'list', 'api', '', 'v1', '', 'namespaces', '', '', ['namespaces']],
  ['GET', '/api/v1/namespaces/other', 'get', 'api', '', 'v1', 'other', 'namespaces', '', 'other', ['namespaces', 'other']],
  ['GET', '/api/v1/namespaces/other/configmaps', 'list', 'api', '', 'v1', 'other', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/namespaces/other/configmaps/foo', 'get', 'api', '', 'v1', 'other', 'configmaps', '', 'foo', ['configmaps', 'foo']],
  ['HEAD', '/api/v1/namespaces/other/configmaps/foo', 'get', 'api', '', 'v1', 'other', 'configmaps', '', 'foo', ['configmaps', 'foo']],
  ['GET', '/api/v1/configmaps', 'list', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  ['HEAD', '/api/v1/configmaps', 'list', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  ['PATCH', '/api/v1/namespaces/new-namespace', 'patch', 'api', '', 'v1', 'new-namespace', 'namespaces', '', 'new-namespace', ['namespaces', 'new-namespace']],
  ['GET', '/api/v1/namespaces/', 'list', 'api', '', 'v1', '', 'namespaces', '', '', ['namespaces']],

  // special verbs
  ['GET', '/api/v1/proxy/namespaces/other/pods/foo', 'proxy', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo']],
  ['GET', '/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource', 'proxy', 'api', '', 'v1', 'other', 'pods', '', 'foo', ['pods', 'foo', 'subpath', 'not', 'a', 'subresource']],
  ['GET', '/api/v1/watch/configmaps', 'watch', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/configmaps?watch=true', 'watch', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/configmaps?watch=TRUE', 'watch', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/configmaps?watch=false', 'list', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/configmaps?watch=False', 'list', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/watch/namespaces/other/configmaps', 'watch', 'api', '', 'v1', 'other', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/watch/namespaces/other/configmaps/foo', 'watch', 'api', '', 'v1', 'other', 'configmaps', '', 'foo', ['configmaps', 'foo']],
  ['GET', '/api/v1/namespaces/other/configmaps?watch=1', 'watch', 'api', '', 'v1', 'other', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/namespaces/other/configmaps?watch=0', 'list', 'api', '', 'v1', 'other', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/namespaces/other/configmaps?watch=1&watch=0', 'watch', 'api', '', 'v1', 'other', 'configmaps', '', '', ['configmaps']],

  // subresource identification
  ['GET', '/api/v1/namespaces/other/pods/foo/status', 'get', 'api', '', 'v1', 'other', 'pods', 'status', 'foo', ['pods', 'foo', 'status']],
  ['GET', '/api/v1/namespaces/other/pods/foo/proxy/subpath', 'get', 'api', '', 'v1', 'other', 'pods', 'proxy', 'foo', ['pods', 'foo', 'proxy', 'subpath']],
  ['PUT', '/api/v1/namespaces/other/finalize', 'update', 'api', '', 'v1', 'other', 'namespaces', 'finalize', 'other', ['namespaces', 'other', 'finalize']],
  ['PUT', '/api/v1/namespaces/other/status', 'update', 'api', '', 'v1', 'other', 'namespaces', 'status', 'other', ['namespaces', 'other', 'status']],
  ['PUT', '/apis/storage.k8s.io/v1/csidrivers/x/status', 'update', 'apis', 'storage.k8s.io', 'v1', '', 'csidrivers', 'status', 'x', ['csidrivers', 'x', 'status']],

  // verb identification
  ['PATCH', '/api/v1/namespaces/other/configmaps/foo', 'patch', 'api', '', 'v1', 'other', 'configmaps', '', 'foo', ['configmaps', 'foo']],
  ['DELETE', '/api/v1/namespaces/other/configmaps/foo', 'delete', 'api', '', 'v1', 'other', 'configmaps', '', 'foo', ['configmaps', 'foo']],
  ['POST', '/api/v1/namespaces/other/configmaps', 'create', 'api', '', 'v1', 'other', 'configmaps', '', '', ['configmaps']],
  ['OPTIONS', '/api/v1/namespaces/other/configmaps', '', 'api', '', 'v1', 'other', 'configmaps', '', '', ['configmaps']],

  // deletecollection verb identification
  ['DELETE', '/api/v1/persistentvolumes', 'deletecollection', 'api', '', 'v1', '', 'persistentvolumes', '', '', ['persistentvolumes']],
  ['DELETE', '/api/v1/namespaces', 'deletecollection', 'api', '', 'v1', '', 'namespaces', '', '', ['namespaces']],
  ['DELETE', '/api/v1/namespaces/other/configmaps', 'deletecollection', 'api', '', 'v1', 'other', 'configmaps', '', '', ['configmaps']],
  ['DELETE', '/apis/discovery.k8s.io/v1/namespaces/other/endpointslices', 'deletecollection', 'apis', 'discovery.k8s.io', 'v1', 'other', 'endpointslices', '', '', ['endpointslices']],

  // api group and version identification
  ['POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', 'create', 'apis', 'rbac.authorization.k8s.io', 'v1', '', 'clusterrolebindings', '', '', ['clusterrolebindings']],
  ['POST', '/apis/resource.k8s.io/v1beta2/resourceslices', 'create', 'apis', 'resource.k8s.io', 'v1beta2', '', 'resourceslices', '', '', ['resourceslices']],

  // a fieldSelector pinning metadata.name turns a list or watch into a request for that name
  ['GET', '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dcm1', 'list', 'api', '', 'v1', 'default', 'configmaps', '', 'cm1', ['configmaps']],
  ['GET', '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name==cm1', 'list', 'api', '', 'v1', 'default', 'configmaps', '', 'cm1', ['configmaps']],
  ['GET', '/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name=cm1', 'watch', 'api', '', 'v1', 'default', 'configmaps', '', 'cm1', ['configmaps']],
  ['GET', '/api/v1/configmaps?fieldSelector=metadata.name=cm1,metadata.namespace=default', 'list', 'api', '', 'v1', '', 'configmaps', '', 'cm1', ['configmaps']],
  ['GET', '/api/v1/configmaps?fieldSelector=metadata.name!=cm1', 'list', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/configmaps?fieldSelector=foo=bar', 'list', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  // an undecodable selector (or other list option) drops the name but keeps watch
  ['GET', '/api/v1/configmaps?fieldSelector=metadata.name=cm1,foo', 'list', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/configmaps?fieldSelector=metadata.name=cm1,foo&watch=true', 'watch', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/configmaps?fieldSelector=metadata.name=cm1&limit=abc', 'list', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/configmaps?fieldSelector=metadata.name=cm1&limit=5', 'list', 'api', '', 'v1', '', 'configmaps', '', 'cm1', ['configmaps']],
  // a name that cannot be a path segment is not taken
  ['GET', '/api/v1/configmaps?fieldSelector=metadata.name=..', 'list', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  ['GET', '/api/v1/configmaps?fieldSelector=metadata.name=a%2Fb', 'list', 'api', '', 'v1', '', 'configmaps', '', '', ['configmaps']],
  // the selector never renames a delete: deletecollection keeps no name
  ['DELETE', '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name=cm1', 'deletecollection', 'api', '', 'v1', 'default', 'configmaps', '', '', ['configmaps']],

  // percent-encoded paths are decoded before splitting, as Go's URL.Path is
  ['GET', '/api/v1/namespaces/default/configmaps/a%20b', 'get', 'api', '', 'v1', 'default', 'configmaps', '', 'a b', ['configmaps', 'a b']],
];

describe('newRequestInfo: resource requests', () => {
  it.each(resourceRequests)('%s %s', (method, url, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name, parts) => {
    const info = newRequestInfo(method, url);
    expect(info).toEqual({
      isResourceRequest: true,
      path: decodeURIComponent(url.split('?')[0]),
      verb,
      apiPrefix,
      apiGroup,
      apiVersion,
      namespace,
      resource,
      subresource,
      name,
      parts,
    });
  });
});

describe('newRequestInfo: non-resource requests', () => {
  const rows: [method: string, url: string, verb: string][] = [
    ['GET', '/', 'get'],
    ['GET', '', 'get'],
    ['GET', '/api', 'get'],
    ['GET', '/api/v1', 'get'],
    ['GET', '/api/version/', 'get'],
    ['GET', '/apis', 'get'],
    ['GET', '/apis/storage.k8s.io', 'get'],
    ['GET', '/apis/storage.k8s.io/v1', 'get'],
    ['GET', '/apis/storage.k8s.io/v1/', 'get'],
    ['GET', '/apis/version/resource', 'get'],
    ['GET', '/badprefix/version/resource', 'get'],
    ['GET', '/healthz', 'get'],
    ['GET', '/livez?verbose', 'get'],
    ['HEAD', '/version', 'head'],
    ['POST', '/openapi/v3', 'post'],
    ['PUT', '/not-api/v1/configmaps', 'put'],
  ];
  it.each(rows)('%s %s', (method, url, verb) => {
    const info = newRequestInfo(method, url);
    expect(info.isResourceRequest).toBe(false);
    expect(info.verb).toBe(verb);
    expect(info.path).toBe(url.split('?')[0]);
    expect([info.apiPrefix, info.apiGroup, info.apiVersion, info.namespace, info.resource, info.subresource, info.name]).toEqual(['', '', '', '', '', '', '']);
    expect(info.parts).toEqual([]);
  });

  it('treats upstream\'s groupless and grouped minimal shapes as resource requests', () => {
    for (const url of ['/api/version/resource', '/apis/group/version/resource/name/subresource', '/api/version/resource/name/subresource', '/apis/batch/v1/job', '/apis/batch/v1/job/foo', '/apis/batch/v1/job/foo/scale']) {
      expect(newRequestInfo('GET', url).isResourceRequest).toBe(true);
    }
  });
});

describe('newRequestInfo: errors and helpers', () => {
  it('rejects a special verb with nothing after it', () => {
    expect(() => newRequestInfo('GET', '/api/v1/watch')).toThrow(RequestPathError);
  });

  it('rejects a malformed escape in the path', () => {
    expect(() => newRequestInfo('GET', '/api/v1/namespaces/%zz/configmaps')).toThrow(RequestPathError);
  });

  it('accepts an absolute URL', () => {
    expect(newRequestInfo('GET', 'https://127.0.0.1:6443/api/v1/namespaces/a/configmaps/b').name).toBe('b');
  });

  it('knows long-running requests as kube-apiserver does', () => {
    expect(isLongRunning(newRequestInfo('GET', '/api/v1/configmaps?watch=1'))).toBe(true);
    expect(isLongRunning(newRequestInfo('GET', '/api/v1/watch/configmaps'))).toBe(true);
    expect(isLongRunning(newRequestInfo('GET', '/api/v1/namespaces/a/pods/b/log'))).toBe(true);
    expect(isLongRunning(newRequestInfo('POST', '/api/v1/namespaces/a/pods/b/exec'))).toBe(true);
    expect(isLongRunning(newRequestInfo('GET', '/api/v1/configmaps'))).toBe(false);
    expect(isLongRunning(newRequestInfo('GET', '/watch/foo/bar'))).toBe(false);
  });

  it('counts every verb but get, list and watch as mutating', () => {
    expect(isMutating(newRequestInfo('GET', '/api/v1/configmaps'))).toBe(false);
    expect(isMutating(newRequestInfo('GET', '/healthz'))).toBe(false);
    expect(isMutating(newRequestInfo('POST', '/api/v1/namespaces/a/configmaps'))).toBe(true);
    expect(isMutating(newRequestInfo('DELETE', '/api/v1/namespaces/a/configmaps'))).toBe(true);
    expect(isMutating(newRequestInfo('HEAD', '/healthz'))).toBe(true);
  });
});
