import { newId } from "@stake/db/ids";
import { AppError } from "../../errors.ts";
import type { AccountContext, GatewayAccountDeps } from "./context.ts";
import type { LoginRequest, SignupRequest } from "./schemas.ts";

/** Sign-up, login and the user's one party. */
export function createGatewayUserService(deps: GatewayAccountDeps, ctx: AccountContext) {
  const { repo, passwords, limits, jwt } = deps;
  const session = async (userId: string) => ({
    token: await jwt.sign(userId),
    tokenType: "Bearer" as const,
    expiresIn: jwt.ttlSeconds,
  });
  return {
    async signup(input: SignupRequest) {
      const user = await repo.insertUser({
        id: newId("gatewayUser"),
        email: input.email,
        passwordHash: await passwords.hash(input.password),
      });
      if (!user) throw new AppError("GATEWAY_USER_EXISTS", "User already exists");
      // Signed in at once, as log-in would: a new user's next step (a party, a key) needs the token.
      return {
        userId: user.id,
        email: user.email,
        createdAt: user.createdAt.toISOString(),
        ...(await session(user.id)),
      };
    },

    /** Password attempts are slowed per (client address, e-mail) pair, as for Basic auth. */
    async login(input: LoginRequest, ip: string) {
      const user = await repo.findUserByEmail(input.email);
      const ok = await limits.guardPasswordCheck(ip, `gateway:${input.email}`, () =>
        user ? passwords.verify(user.passwordHash, input.password) : passwords.verifyDummy(input.password),
      );
      if (!user || !ok) throw new AppError("UNAUTHORIZED", "Unauthorized");
      return session(user.id);
    },

    async createParty(userId: string) {
      await ctx.existingUser(userId);
      const party = await repo.insertParty({ id: newId("party"), userId });
      if (!party) throw new AppError("PARTY_EXISTS", "Party already exists");
      await ctx.invalidate(userId);
      return { partyId: party.id, createdAt: party.createdAt.toISOString() };
    },

    async party(userId: string) {
      const party = await repo.findPartyOfUser(userId);
      return { party: party && { partyId: party.id, createdAt: party.createdAt.toISOString() } };
    },
  };
}
