// /openapi/v2 in the protobuf form kubectl asks for (gnostic's openapi.v2.Document, media type
// application/com.github.proto-openapi.spec.v2@v1.0+protobuf). Older kubectl (Debian's 1.20)
// accepts no other form for client-side validation and explain. Only the messages and fields a
// Kubernetes OpenAPI document uses are encoded; values of `Any` go in its `yaml` field as JSON.
import { isObject, type JsonObject, type JsonValue } from './json.js';

export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let v = BigInt(Math.trunc(value));
  if (v < 0n) v += 1n << 64n;
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (v > 0n);
  return Buffer.from(bytes);
}

/** Accumulates the fields of one message. */
class Message {
  private readonly parts: Buffer[] = [];

  private tag(field: number, wireType: number): void {
    this.parts.push(varint((field << 3) | wireType));
  }

  bytes(field: number, payload: Buffer): this {
    this.tag(field, 2);
    this.parts.push(varint(payload.length), payload);
    return this;
  }

  string(field: number, value: unknown): this {
    return typeof value === 'string' && value !== '' ? this.bytes(field, Buffer.from(value, 'utf8')) : this;
  }

  strings(field: number, values: unknown): this {
    if (Array.isArray(values))
      for (const v of values) if (typeof v === 'string') this.bytes(field, Buffer.from(v, 'utf8'));
    return this;
  }

  message(field: number, message: Message | undefined): this {
    return message ? this.bytes(field, message.finish()) : this;
  }

  bool(field: number, value: unknown): this {
    if (value === true) {
      this.tag(field, 0);
      this.parts.push(varint(1));
    }
    return this;
  }

  int64(field: number, value: unknown): this {
    if (typeof value === 'number') {
      this.tag(field, 0);
      this.parts.push(varint(value));
    }
    return this;
  }

  double(field: number, value: unknown): this {
    if (typeof value === 'number') {
      this.tag(field, 1);
      const b = Buffer.alloc(8);
      b.writeDoubleLE(value);
      this.parts.push(b);
    }
    return this;
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** gnostic Any: the value as YAML text (JSON is YAML). */
function any(value: JsonValue): Message {
  return new Message().string(2, JSON.stringify(value));
}

function vendorExtensions(msg: Message, field: number, obj: JsonObject): void {
  for (const [name, value] of Object.entries(obj)) {
    if (name.startsWith('x-') && value !== undefined)
      msg.message(field, new Message().string(1, name).message(2, any(value)));
  }
}

function schema(s: JsonObject): Message {
  const m = new Message().string(1, s.$ref).string(2, s.format).string(3, s.title).string(4, s.description);
  if (s.default !== undefined) m.message(5, any(s.default));
  m.double(6, s.multipleOf)
    .double(7, s.maximum)
    .bool(8, s.exclusiveMaximum)
    .double(9, s.minimum)
    .bool(10, s.exclusiveMinimum)
    .int64(11, s.maxLength)
    .int64(12, s.minLength)
    .string(13, s.pattern)
    .int64(14, s.maxItems)
    .int64(15, s.minItems)
    .bool(16, s.uniqueItems)
    .int64(17, s.maxProperties)
    .int64(18, s.minProperties)
    .strings(19, s.required);
  if (Array.isArray(s.enum)) for (const e of s.enum) m.message(20, any(e));
  if (isObject(s.additionalProperties))
    m.message(21, new Message().message(1, schema(s.additionalProperties)));
  else if (typeof s.additionalProperties === 'boolean')
    m.message(21, new Message().bool(2, s.additionalProperties));
  if (typeof s.type === 'string') m.message(22, new Message().strings(1, [s.type]));
  if (isObject(s.items)) m.message(23, new Message().message(1, schema(s.items)));
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) if (isObject(sub)) m.message(24, schema(sub));
  if (isObject(s.properties)) {
    const props = new Message();
    for (const [name, sub] of Object.entries(s.properties))
      if (isObject(sub)) props.message(1, new Message().string(1, name).message(2, schema(sub)));
    m.message(25, props);
  }
  vendorExtensions(m, 31, s);
  return m;
}

function parameter(p: JsonObject): Message {
  const inPath = p.in === 'path';
  const sub = inPath
    ? new Message().bool(1, p.required).string(2, p.in).string(4, p.name).string(5, p.type)
    : new Message()
        .bool(1, p.required)
        .string(2, p.in)
        .string(4, p.name)
        .string(6, p.type)
        .bool(20, p.uniqueItems);
  const nonBody = new Message().message(inPath ? 4 : 3, sub);
  return new Message().message(1, new Message().message(2, nonBody));
}

function operation(op: JsonObject): Message {
  const m = new Message().string(5, op.operationId).strings(7, op.consumes);
  if (Array.isArray(op.parameters))
    for (const p of op.parameters) if (isObject(p)) m.message(8, parameter(p));
  if (isObject(op.responses)) {
    const responses = new Message();
    for (const [code, r] of Object.entries(op.responses)) {
      if (!isObject(r)) continue;
      const response = new Message().string(1, r.description);
      if (isObject(r.schema)) response.message(2, new Message().message(1, schema(r.schema)));
      responses.message(1, new Message().string(1, code).message(2, new Message().message(1, response)));
    }
    m.message(9, responses);
  }
  vendorExtensions(m, 13, op);
  return m;
}

const PATH_ITEM_FIELDS: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, patch: 8 };

/** Encodes an OpenAPI v2 JSON document (as openApiV2() builds it) as gnostic protobuf. */
export function openApiV2Protobuf(doc: JsonObject): Buffer {
  const m = new Message().string(1, doc.swagger);
  if (isObject(doc.info)) m.message(2, new Message().string(1, doc.info.title).string(2, doc.info.version));
  if (isObject(doc.paths)) {
    const paths = new Message();
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!isObject(item)) continue;
      const pathItem = new Message();
      for (const [method, field] of Object.entries(PATH_ITEM_FIELDS)) {
        const op = item[method];
        if (isObject(op)) pathItem.message(field, operation(op));
      }
      if (Array.isArray(item.parameters))
        for (const p of item.parameters) if (isObject(p)) pathItem.message(9, parameter(p));
      paths.message(2, new Message().string(1, path).message(2, pathItem));
    }
    m.message(8, paths);
  }
  if (isObject(doc.definitions)) {
    const definitions = new Message();
    for (const [name, def] of Object.entries(doc.definitions)) {
      if (isObject(def)) definitions.message(1, new Message().string(1, name).message(2, schema(def)));
    }
    m.message(9, definitions);
  }
  return m.finish();
}
