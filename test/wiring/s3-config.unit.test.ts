import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config';

describe('object storage configuration from the environment', () => {
  it('rule: S3_BUCKET selects S3 (unset or empty: the filesystem store); S3_REGION defaults to us-east-1, S3_ENDPOINT unset is AWS', () => {
    assert.equal(loadConfig({}).s3, null);
    assert.equal(loadConfig({ S3_BUCKET: '', S3_ENDPOINT: 'http://127.0.0.1:7070' }).s3, null);
    assert.deepEqual(loadConfig({ S3_BUCKET: 'files' }).s3, { bucket: 'files', endpoint: null, region: 'us-east-1', forcePathStyle: false });
  });

  it('rule: S3_ENDPOINT, S3_REGION and S3_FORCE_PATH_STYLE=true are taken as given', () => {
    const s3 = loadConfig({ S3_BUCKET: 'files', S3_ENDPOINT: 'http://10.0.0.5:7070', S3_REGION: 'eu-west-1', S3_FORCE_PATH_STYLE: 'true' }).s3;
    assert.deepEqual(s3, { bucket: 'files', endpoint: 'http://10.0.0.5:7070', region: 'eu-west-1', forcePathStyle: true });
    assert.equal(loadConfig({ S3_BUCKET: 'files', S3_FORCE_PATH_STYLE: 'false' }).s3?.forcePathStyle, false);
  });
});
