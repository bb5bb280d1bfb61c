# rtcscope lab agent: Debian's Chromium, iproute2 for the kernel-rate backend. Build from the repo root:
#   docker build -f infra/lab-agent.Dockerfile -t rtcscope-lab-agent .
# Run with the agent token of a project; NET_ADMIN + SYS_ADMIN let it use the kernel-rate backend
# (without them it says so and uses the user-space relay):
#   docker run --cap-add NET_ADMIN --cap-add SYS_ADMIN -e RTCSCOPE_SERVER=https://rtcscope.example \
#     -e RTCSCOPE_AGENT_TOKEN=at_… rtcscope-lab-agent
FROM node:20-bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium iproute2 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
RUN npm install -g pnpm@12.21.0
COPY . .
RUN pnpm install --frozen-lockfile
ENV CHROMIUM_PATH=/usr/bin/chromium
CMD ["sh", "-c", "exec node --import tsx apps/lab/src/cli.ts agent --server \"$RTCSCOPE_SERVER\" --name \"${RTCSCOPE_AGENT_NAME:-$(hostname)}\""]
