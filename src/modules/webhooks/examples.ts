import type { OperationExamples } from '../../rpc/examples.js';

/** A request and its answer for each of the module's operations, shown in the API reference (checked against the schemas by test/examples.test.ts). */
export const examples: OperationExamples = {
  'webhooks.createEndpoint': {
    "input": {
      "url": "https://erp.bluehill.example/ok/signed",
      "description": "to /ok/signed",
      "eventTypes": [
        "catalog.location.created"
      ]
    },
    "output": {
      "id": "whe_01m8gfa7f35dn2qdhvre38t31h",
      "url": "https://erp.bluehill.example/ok/signed",
      "description": "to /ok/signed",
      "eventTypes": [
        "catalog.location.created"
      ],
      "status": "active",
      "disabledReason": null,
      "disabledAt": null,
      "consecutiveFailures": 0,
      "failingSince": null,
      "previousSecretExpiresAt": null,
      "createdAt": "2026-11-28T07:01:04.570Z",
      "updatedAt": "2026-11-28T07:01:04.570Z",
      "deletedAt": null,
      "secret": "whsec_ADBgiSSKNuwzmbgiuLUmdU9YinSARH/083ZGcC28RE8="
    }
  },
  'webhooks.createOAuthClient': {
    "input": {
      "role": "roaster",
      "scopes": [
        "inventory.*"
      ],
      "label": "ERP"
    },
    "output": {
      "clientId": "ocl_01m8gem0cb495vyf4sqnjgvb22",
      "role": "roaster",
      "scopes": [
        "inventory.*"
      ],
      "label": "ERP",
      "createdAt": "2026-11-28T06:48:56.456Z",
      "revokedAt": null,
      "clientSecret": "fccs_ydFBNufocZkYd_4UMZlMB7t0BzQat-p1pZj2Z2VM9WE"
    }
  },
  'webhooks.deleteEndpoint': {
    "input": {
      "id": "whe_01m8gfahxpx4dzb7sgjn959rx6"
    },
    "output": {
      "id": "whe_01m8gfahxpx4dzb7sgjn959rx6",
      "url": "https://erp.bluehill.example/ok/target",
      "description": null,
      "eventTypes": [
        "catalog.location.created"
      ],
      "status": "active",
      "disabledReason": null,
      "disabledAt": null,
      "consecutiveFailures": 0,
      "failingSince": null,
      "previousSecretExpiresAt": null,
      "createdAt": "2026-11-28T07:01:15.317Z",
      "updatedAt": "2026-11-28T07:01:16.316Z",
      "deletedAt": "2026-11-28T07:01:16.316Z"
    }
  },
  'webhooks.getEndpoint': {
    "input": {
      "id": "whe_01m8gf76p771thdq2berhqhnnj"
    },
    "output": {
      "id": "whe_01m8gf76p771thdq2berhqhnnj",
      "url": "https://shop.bluehill.example/webhooks/stock",
      "description": null,
      "eventTypes": [
        "catalog.location.created"
      ],
      "status": "disabled",
      "disabledReason": "failing",
      "disabledAt": "2026-11-28T06:59:26.077Z",
      "consecutiveFailures": 1,
      "failingSince": "2026-11-28T06:59:25.957Z",
      "previousSecretExpiresAt": null,
      "createdAt": "2026-11-28T06:59:25.493Z",
      "updatedAt": "2026-11-28T06:59:26.077Z",
      "deletedAt": null
    }
  },
  'webhooks.listDeliveries': {
    "input": {
      "filter": {
        "eventId": "evt_01m8gfaafcf4rbeqfsj6gex4x9"
      }
    },
    "output": {
      "items": [
        {
          "id": "whd_01m8gfaafdcmnkmqn6vsdswe25",
          "endpointId": "whe_01m8gfaa9zgeahmk2rs6zttgsg",
          "eventId": "evt_01m8gfaafcf4rbeqfsj6gex4x9",
          "eventType": "catalog.location.created",
          "status": "succeeded",
          "attemptCount": 1,
          "nextAttemptAt": null,
          "attempts": [
            {
              "attempt": 1,
              "startedAt": "2026-11-28T07:01:07.745Z",
              "latencyMs": 440,
              "statusCode": 200,
              "succeeded": true,
              "responseBody": "thanks",
              "error": null
            }
          ],
          "createdAt": "2026-11-28T07:01:07.689Z",
          "updatedAt": "2026-11-28T07:01:08.230Z"
        },
        {
          "id": "whd_01m8gfaafdj118w7akt334hwy8",
          "endpointId": "whe_01m8gfaa6marsgpghgywxa88w9",
          "eventId": "evt_01m8gfaafcf4rbeqfsj6gex4x9",
          "eventType": "catalog.location.created",
          "status": "succeeded",
          "attemptCount": 1,
          "nextAttemptAt": null,
          "attempts": [
            {
              "attempt": 1,
              "startedAt": "2026-11-28T07:01:07.745Z",
              "latencyMs": 314,
              "statusCode": 200,
              "succeeded": true,
              "responseBody": "thanks",
              "error": null
            }
          ],
          "createdAt": "2026-11-28T07:01:07.689Z",
          "updatedAt": "2026-11-28T07:01:08.073Z"
        },
        {
          "id": "whd_01m8gfaafdrk256xw2sakn7vv9",
          "endpointId": "whe_01m8gfaa2qvwbg7ffsqf9am99k",
          "eventId": "evt_01m8gfaafcf4rbeqfsj6gex4x9",
          "eventType": "catalog.location.created",
          "status": "succeeded",
          "attemptCount": 1,
          "nextAttemptAt": null,
          "attempts": [
            {
              "attempt": 1,
              "startedAt": "2026-11-28T07:01:07.744Z",
              "latencyMs": 114,
              "statusCode": 200,
              "succeeded": true,
              "responseBody": "thanks",
              "error": null
            }
          ],
          "createdAt": "2026-11-28T07:01:07.689Z",
          "updatedAt": "2026-11-28T07:01:08.073Z"
        }
      ],
      "nextCursor": null
    }
  },
  'webhooks.listEndpoints': {
    "input": {},
    "output": {
      "items": [
        {
          "id": "whe_01m8gfa7f35dn2qdhvre38t31h",
          "url": "https://erp.bluehill.example/ok/signed",
          "description": "to /ok/signed",
          "eventTypes": [
            "catalog.location.created"
          ],
          "status": "active",
          "disabledReason": null,
          "disabledAt": null,
          "consecutiveFailures": 0,
          "failingSince": null,
          "previousSecretExpiresAt": null,
          "createdAt": "2026-11-28T07:01:04.570Z",
          "updatedAt": "2026-11-28T07:01:04.570Z",
          "deletedAt": null
        }
      ],
      "nextCursor": null
    }
  },
  'webhooks.listEvents': {
    "input": {
      "filter": {
        "types": [
          "catalog.location.created"
        ]
      }
    },
    "output": {
      "items": [
        {
          "id": "evt_01m8gf8h9x0aqm6eg2r02tkakg",
          "type": "catalog.location.created",
          "createdAt": "2026-11-28T07:00:08.907Z",
          "organizationId": "org_01m8gf8g8d2ek2se6n6tg2xb7m",
          "data": {
            "location": {
              "id": "loc_01m8gf8h5whkq150s3fwhbzkbm",
              "code": "L28stgz",
              "kind": "warehouse",
              "name": "Site L28stgz",
              "address": null,
              "isActive": true,
              "timezone": null,
              "createdAt": "2026-11-28T07:00:08.907Z",
              "updatedAt": "2026-11-28T07:00:08.907Z",
              "archivedAt": null
            }
          }
        },
        {
          "id": "evt_01m8gf8hsb2ndcf6fwz733j7xx",
          "type": "catalog.location.created",
          "createdAt": "2026-11-28T07:00:09.640Z",
          "organizationId": "org_01m8gf8g8d2ek2se6n6tg2xb7m",
          "data": {
            "location": {
              "id": "loc_01m8gf8hs9cw44bdd7hbvqs2g7",
              "code": "Lsk9m0d",
              "kind": "warehouse",
              "name": "Site Lsk9m0d",
              "address": null,
              "isActive": true,
              "timezone": null,
              "createdAt": "2026-11-28T07:00:09.640Z",
              "updatedAt": "2026-11-28T07:00:09.640Z",
              "archivedAt": null
            }
          }
        },
        {
          "id": "evt_01m8gf8j1qh9w7958jfa5q933k",
          "type": "catalog.location.created",
          "createdAt": "2026-11-28T07:00:09.909Z",
          "organizationId": "org_01m8gf8g8d2ek2se6n6tg2xb7m",
          "data": {
            "location": {
              "id": "loc_01m8gf8j1p7sw2jmvmjq1frmw2",
              "code": "Lf7gz6p",
              "kind": "warehouse",
              "name": "Site Lf7gz6p",
              "address": null,
              "isActive": true,
              "timezone": null,
              "createdAt": "2026-11-28T07:00:09.909Z",
              "updatedAt": "2026-11-28T07:00:09.909Z",
              "archivedAt": null
            }
          }
        }
      ],
      "nextCursor": "WyJldmVudF9mZWVkIiw3NjQsM10"
    }
  },
  'webhooks.listOAuthClients': {
    "input": {},
    "output": {
      "items": [
        {
          "clientId": "ocl_01m8gem0cb495vyf4sqnjgvb22",
          "role": "roaster",
          "scopes": [
            "inventory.*"
          ],
          "label": "ERP",
          "createdAt": "2026-11-28T06:48:56.456Z",
          "revokedAt": null
        }
      ],
      "nextCursor": null
    }
  },
  'webhooks.redeliver': {
    "input": {
      "id": "whd_01m8gfaehqy7twjkrj9c5a2x3z"
    },
    "output": {
      "id": "whd_01m8gfaehqy7twjkrj9c5a2x3z",
      "endpointId": "whe_01m8gfaeftt8fasvy9yrxhtv95",
      "eventId": "evt_01m8gfaehq6h1255znp0xmng5p",
      "eventType": "catalog.location.created",
      "status": "pending",
      "attemptCount": 3,
      "nextAttemptAt": "2026-11-28T07:01:12.776Z",
      "attempts": [
        {
          "attempt": 1,
          "startedAt": "2026-11-28T07:01:11.992Z",
          "latencyMs": 14,
          "statusCode": 500,
          "succeeded": false,
          "responseBody": "{\"error\":\"upstream unavailable\",\"attempt\":1}",
          "error": "answered 500"
        },
        {
          "attempt": 2,
          "startedAt": "2026-11-28T07:01:12.245Z",
          "latencyMs": 2,
          "statusCode": 500,
          "succeeded": false,
          "responseBody": "{\"error\":\"upstream unavailable\",\"attempt\":2}",
          "error": "answered 500"
        },
        {
          "attempt": 3,
          "startedAt": "2026-11-28T07:01:12.497Z",
          "latencyMs": 16,
          "statusCode": 200,
          "succeeded": true,
          "responseBody": "thanks",
          "error": null
        }
      ],
      "createdAt": "2026-11-28T07:01:11.861Z",
      "updatedAt": "2026-11-28T07:01:12.776Z"
    }
  },
  'webhooks.revokeOAuthClient': {
    "input": {
      "id": "ocl_01m8gem0cb495vyf4sqnjgvb22"
    },
    "output": {
      "clientId": "ocl_01m8gem0cb495vyf4sqnjgvb22",
      "role": "roaster",
      "scopes": [
        "inventory.*"
      ],
      "label": "ERP",
      "createdAt": "2026-11-28T06:48:56.456Z",
      "revokedAt": "2026-11-28T06:48:57.634Z"
    }
  },
  'webhooks.rotateSecret': {
    "input": {
      "id": "whe_01m8gfadxz4xw3t6ygedpre4ek",
      "overlapMinutes": 60
    },
    "output": {
      "id": "whe_01m8gfadxz4xw3t6ygedpre4ek",
      "url": "https://erp.bluehill.example/ok/rotate",
      "description": "to /ok/rotate",
      "eventTypes": [
        "catalog.location.created"
      ],
      "status": "active",
      "disabledReason": null,
      "disabledAt": null,
      "consecutiveFailures": 0,
      "failingSince": null,
      "previousSecretExpiresAt": "2026-11-28T08:01:11.290Z",
      "createdAt": "2026-11-28T07:01:11.230Z",
      "updatedAt": "2026-11-28T07:01:11.290Z",
      "deletedAt": null,
      "secret": "whsec_0lnQmrlz3SzXvVmVdBwwje30mLRScm8umObp+FMCj6w="
    }
  },
  'webhooks.updateEndpoint': {
    "input": {
      "id": "whe_01m8gf76p771thdq2berhqhnnj",
      "status": "active"
    },
    "output": {
      "id": "whe_01m8gf76p771thdq2berhqhnnj",
      "url": "https://shop.bluehill.example/webhooks/stock",
      "description": null,
      "eventTypes": [
        "catalog.location.created"
      ],
      "status": "active",
      "disabledReason": null,
      "disabledAt": null,
      "consecutiveFailures": 0,
      "failingSince": null,
      "previousSecretExpiresAt": null,
      "createdAt": "2026-11-28T06:59:25.493Z",
      "updatedAt": "2026-11-28T06:59:27.790Z",
      "deletedAt": null
    }
  },
  'webhooks.listEventTypes': {
    "input": {},
    "output": {
      "items": [
        {
          "type": "cafe.machine.bar_token_issued",
          "description": "A bar machine token was issued (the event names the credential, never the secret).",
          "payloadSchema": {
            "type": "object",
            "properties": {
              "machineId": {
                "type": "string",
                "pattern": "^[a-z]+_[0-9a-z]+$"
              },
              "credentialId": {
                "type": "string",
                "pattern": "^[a-z]+_[0-9a-z]+$"
              },
              "expiresAt": {
                "type": "string",
                "format": "date-time",
                "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
              }
            },
            "required": [
              "machineId",
              "credentialId",
              "expiresAt"
            ],
            "additionalProperties": false
          },
          "emittedBy": [
            "cafe.issueBarMachineToken"
          ]
        },
        {
          "type": "catalog.machine.bridge_token_issued",
          "description": "A bridge token was issued for a machine (the credential is named, the secret never).",
          "payloadSchema": {
            "type": "object",
            "properties": {
              "machineId": {
                "type": "string",
                "pattern": "^[a-z]+_[0-9a-z]+$"
              },
              "credentialId": {
                "type": "string",
                "pattern": "^[a-z]+_[0-9a-z]+$"
              },
              "expiresAt": {
                "type": "string",
                "format": "date-time",
                "pattern": "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$"
              }
            },
            "required": [
              "machineId",
              "credentialId",
              "expiresAt"
            ],
            "additionalProperties": false
          },
          "emittedBy": [
            "catalog.machine.issueMachineBridgeToken"
          ]
        }
      ]
    }
  },
};
