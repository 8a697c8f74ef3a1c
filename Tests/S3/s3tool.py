"""Prepares and inspects the moto S3 server the S3 tests start, with boto3 (an S3 client
independent of PhotoCluster's own).

  s3tool.py setup ENDPOINT --bucket NAME... [--put s3://BUCKET/KEY=FILE...]
      Makes an IAM user allowed s3:* with an access key, a role of the same rights assumed for
      temporary credentials (with a session token), the buckets and the objects; then turns on
      moto's authentication, so from now on every request must carry a valid SigV4 signature.
      Prints {"key": {...}, "session": {...}} as JSON.
  s3tool.py inspect ENDPOINT s3://BUCKET[/PREFIX]
      With the credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: prints every object
      under the prefix ({"key", "size", "content_type", "sha256", "etag"}) and the multipart uploads not
      completed nor aborted, as JSON.
"""
import argparse
import hashlib
import json
import sys
import urllib.request

import boto3

POLICY = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]})


def split(url):
    bucket, _, key = url[len("s3://"):].partition("/")
    return bucket, key


def setup(args):
    anonymous = dict(endpoint_url=args.endpoint, region_name="us-east-1", aws_access_key_id="setup", aws_secret_access_key="setup")
    iam, s3, sts = (boto3.client(name, **anonymous) for name in ("iam", "s3", "sts"))
    iam.create_user(UserName="photocluster")
    iam.put_user_policy(UserName="photocluster", PolicyName="s3", PolicyDocument=POLICY)
    key = iam.create_access_key(UserName="photocluster")["AccessKey"]
    role = iam.create_role(RoleName="photocluster", AssumeRolePolicyDocument=TRUST)["Role"]
    iam.put_role_policy(RoleName="photocluster", PolicyName="s3", PolicyDocument=POLICY)
    session = sts.assume_role(RoleArn=role["Arn"], RoleSessionName="tests")["Credentials"]
    for bucket in args.bucket:
        s3.create_bucket(Bucket=bucket)
    for item in args.put:
        url, _, path = item.partition("=")
        bucket, key_name = split(url)
        with open(path, "rb") as source:
            s3.put_object(Bucket=bucket, Key=key_name, Body=source.read(), ContentType="image/jpeg" if path.endswith(".jpg") else "image/png")
    request = urllib.request.Request(args.endpoint + "/moto-api/reset-auth", data=b"0", method="POST", headers={"Content-Type": "text/plain"})
    urllib.request.urlopen(request).read()
    json.dump({
        "key": {"id": key["AccessKeyId"], "secret": key["SecretAccessKey"]},
        "session": {"id": session["AccessKeyId"], "secret": session["SecretAccessKey"], "token": session["SessionToken"]},
    }, sys.stdout)


def inspect(args):
    s3 = boto3.client("s3", endpoint_url=args.endpoint, region_name="us-east-1")
    bucket, prefix = split(args.url)
    objects = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        for item in page.get("Contents", []):
            got = s3.get_object(Bucket=bucket, Key=item["Key"])
            body = got["Body"].read()
            objects.append({"key": item["Key"], "size": len(body), "content_type": got["ContentType"],
                            "sha256": hashlib.sha256(body).hexdigest(), "etag": got["ETag"].strip('"')})
    uploads = s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])
    json.dump({"objects": objects, "pending_uploads": [u["Key"] for u in uploads]}, sys.stdout)


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    setup_parser = commands.add_parser("setup")
    setup_parser.add_argument("endpoint")
    setup_parser.add_argument("--bucket", action="append", default=[])
    setup_parser.add_argument("--put", action="append", default=[])
    inspect_parser = commands.add_parser("inspect")
    inspect_parser.add_argument("endpoint")
    inspect_parser.add_argument("url")
    args = parser.parse_args()
    setup(args) if args.command == "setup" else inspect(args)


if __name__ == "__main__":
    main()
