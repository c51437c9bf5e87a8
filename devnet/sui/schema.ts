/**
 * The part of Sui's public GraphQL schema (the one `@mysten/sui` ships in
 * `dist/graphql/generated/tada-env.d.mts`) that the rewards area queries. Every type, field and argument
 * here exists in Sui's schema with the same type; `tests/sui/schema.test.ts` checks that, and that the
 * client's query documents validate against Sui's full schema.
 */
export const SUI_GRAPHQL_SUBSET = /* GraphQL */ `
scalar SuiAddress
scalar UInt53
scalar DateTime
scalar JSON
scalar Base64

type Query {
  chainIdentifier: String!
  epoch(epochId: UInt53): Epoch
  multiGetEpochs(keys: [UInt53!]!): [Epoch]!
  address(address: SuiAddress): Address
  events(after: String, before: String, filter: EventFilter, first: Int, last: Int): EventConnection
}

type PageInfo {
  endCursor: String
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
}

type Epoch {
  epochId: UInt53!
  startTimestamp: DateTime
  endTimestamp: DateTime
  validatorSet: ValidatorSet
}

type ValidatorSet {
  activeValidators(after: String, before: String, first: Int, last: Int): ValidatorConnection
}

type ValidatorConnection {
  nodes: [Validator!]!
  pageInfo: PageInfo!
}

type Validator {
  contents: MoveValue
}

type MoveType {
  repr: String!
}

type MoveValue {
  json: JSON
  type: MoveType
}

input ObjectFilter {
  owner: SuiAddress
  ownerKind: OwnerKind
  type: String
}

enum OwnerKind {
  ADDRESS
  OBJECT
  SHARED
  IMMUTABLE
}

input DynamicFieldName {
  bcs: Base64
  literal: String
  type: String
}

type Address {
  address: SuiAddress!
  objects(after: String, before: String, filter: ObjectFilter, first: Int, last: Int): MoveObjectConnection
  multiGetDynamicFields(keys: [DynamicFieldName!]!): [DynamicField]!
}

type MoveObject {
  address: SuiAddress!
  contents: MoveValue
}

type MoveObjectConnection {
  nodes: [MoveObject!]!
  pageInfo: PageInfo!
}

union DynamicFieldValue = MoveObject | MoveValue

type DynamicField {
  address: SuiAddress!
  name: MoveValue
  value: DynamicFieldValue
}

input EventFilter {
  afterCheckpoint: UInt53
  atCheckpoint: UInt53
  beforeCheckpoint: UInt53
  module: String
  sender: SuiAddress
  type: String
}

type Transaction {
  digest: String!
}

type Event {
  contents: MoveValue
  sender: Address
  sequenceNumber: UInt53!
  timestamp: DateTime
  transaction: Transaction
}

type EventConnection {
  nodes: [Event!]!
  pageInfo: PageInfo!
}
`;
